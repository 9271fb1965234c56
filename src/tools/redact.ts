const SECRET_KEY = /pass(word|phrase)?|secret|token|api[_-]?key|authori[sz]ation|cookie|credential|private[_-]?key|signature/i;
/** Values that look like credentials whatever their field is called. */
const SECRET_VALUE =
  /^(Bearer\s+\S+|Basic\s+\S+|ahk_(live|test)_\S+|ah[rsz]_\S+|sk-[A-Za-z0-9_-]{10,}|sk-ant-\S+|xox[abpr]-\S+|pat-\S+|re_[A-Za-z0-9_]{10,}|gh[pousr]_\S+|eyJ[\w-]+\.[\w-]+\.[\w-]+)$/;
const MAX_STORED_CHARS = 8 * 1024;

export const REDACTED = "[redacted]";

/** A copy of tool arguments fit for the audit log: secrets replaced, size bounded. */
export function redactArguments(value: unknown): unknown {
  const redacted = walk(value, 0);
  const text = JSON.stringify(redacted) ?? "null";
  return text.length > MAX_STORED_CHARS ? { truncated: true, preview: text.slice(0, MAX_STORED_CHARS) } : redacted;
}

function walk(value: unknown, depth: number): unknown {
  if (depth > 20) return "[too deep]";
  if (typeof value === "string") return SECRET_VALUE.test(value.trim()) ? REDACTED : value;
  if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, SECRET_KEY.test(key) ? REDACTED : walk(child, depth + 1)]));
  }
  return value;
}
