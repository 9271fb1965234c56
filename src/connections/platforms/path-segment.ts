import { PlatformError } from "./types";

/**
 * One argument placed in a URL path, encoded so it stays one segment. A "." or ".." (also spelt
 * %2E) would still be read as a dot segment and climb out of the operation's path (Sheets'
 * `values/..` is the spreadsheet itself), and an empty one names a different resource: both are
 * refused before anything is sent, as the caller's mistake (400, not retried).
 */
export function pathSegment(name: string, value: string): string {
  if (value === "") throw new PlatformError(`The path parameter ${name} cannot be empty.`, 400, undefined, { retryable: false });
  if (/^(\.|%2e){1,2}$/i.test(value)) throw new PlatformError(`The path parameter ${name} cannot be "${value}".`, 400, undefined, { retryable: false });
  return encodeURIComponent(value);
}
