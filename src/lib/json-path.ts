/**
 * Dotted paths into JSON values: `contact.emails.0`, `steps.fetch.result.status`.
 * Shared by the JSON tool, template substitution and workflow conditions.
 */
export function splitPath(path: string): string[] {
  return path
    .split(".")
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

const FORBIDDEN = new Set(["__proto__", "prototype", "constructor"]);

export function getPath(value: unknown, path: string): { found: boolean; value: unknown } {
  return getKeys(value, splitPath(path));
}

/** getPath with the path split once: for looking the same path up in many items. */
export function getKeys(value: unknown, keys: readonly string[]): { found: boolean; value: unknown } {
  let current = value;
  for (const key of keys) {
    if (FORBIDDEN.has(key) || current === null || typeof current !== "object") return { found: false, value: undefined };
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(key) || Number(key) >= current.length) return { found: false, value: undefined };
      current = current[Number(key)];
    } else {
      if (!Object.hasOwn(current, key)) return { found: false, value: undefined };
      current = (current as Record<string, unknown>)[key];
    }
  }
  return { found: true, value: current };
}

/** Returns a copy of `target` with `path` set to `value`, creating objects on the way. */
export function setPath(target: unknown, path: string, value: unknown): unknown {
  const keys = splitPath(path);
  if (keys.length === 0) return value;
  if (keys.some((k) => FORBIDDEN.has(k))) throw new Error(`Path "${path}" is not allowed.`);
  const [head, ...rest] = keys;
  const base = target !== null && typeof target === "object" ? target : {};
  const copy: any = Array.isArray(base) ? [...base] : { ...base };
  copy[head!] = setPath(copy[head!], rest.join("."), value);
  return copy;
}
