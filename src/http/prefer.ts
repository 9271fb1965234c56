/**
 * The `wait` preference of an RFC 7240 `Prefer` header (`Prefer: wait=10`, possibly among other
 * preferences), capped at `max` seconds; undefined when absent or not a number.
 */
export function preferredWait(header: string | undefined, max: number): number | undefined {
  if (!header) return undefined;
  for (const preference of header.split(",")) {
    const [name, value] = preference
      .split(";")[0]!
      .split("=")
      .map((part) => part.trim());
    if (name?.toLowerCase() === "wait" && value && /^\d{1,6}$/.test(value)) return Math.min(Number(value), max);
  }
  return undefined;
}
