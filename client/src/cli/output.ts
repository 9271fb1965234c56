// What the commands print: compact tables for people, the API's answers as JSON with --json,
// and the problem's `detail` (exit code 1) when a call fails.

/** A failure to report in one line on stderr; `hub` then exits with code 1. */
export class CliError extends Error {}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's body, or a CliError with the problem's detail (RFC 9457 problem+json). */
export function unwrap<T>(answer: Answer<T>): T {
  if (answer.error === undefined && answer.response.ok) return answer.data as T;
  const problem = answer.error as { detail?: unknown; title?: unknown; errors?: { field?: string; message?: string }[] } | undefined;
  const detail = typeof problem?.detail === "string" ? problem.detail : typeof problem?.title === "string" ? problem.title : undefined;
  const fields = (problem?.errors ?? []).map((e) => `  ${e.field ?? "?"}: ${e.message ?? ""}`);
  throw new CliError([detail ?? `HTTP ${answer.response.status} ${answer.response.statusText}`, ...fields].join("\n"));
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

const MAX_CELL = 48;

function cell(value: unknown): string {
  if (value === null || value === undefined) return "-";
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  const line = text.replace(/\s+/g, " ");
  return line.length > MAX_CELL ? `${line.slice(0, MAX_CELL - 1)}…` : line;
}

/** Rows as a table with a header line, columns as wide as their widest cell. */
export function printTable(columns: string[], rows: unknown[][]): void {
  if (rows.length === 0) {
    process.stdout.write("(none)\n");
    return;
  }
  const cells = rows.map((row) => row.map(cell));
  const widths = columns.map((name, i) => Math.max(name.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((text, i) => (i === row.length - 1 ? text : text.padEnd(widths[i]!))).join("  ");
  process.stdout.write(`${[line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join("\n")}\n`);
}

/** `name: value` lines for one object's chosen fields. */
export function printFields(fields: [string, unknown][]): void {
  const width = Math.max(...fields.map(([name]) => name.length));
  process.stdout.write(`${fields.map(([name, value]) => `${`${name}:`.padEnd(width + 2)}${cell(value)}`).join("\n")}\n`);
}

/** Tells a person there is another page (on stderr, so piped output stays the table). */
export function morePages(nextCursor: string | null | undefined): void {
  if (nextCursor) process.stderr.write(`more: add --cursor ${nextCursor}\n`);
}

/** A positive integer id from the command line. */
export function idArg(value: string, what: string): number {
  if (!/^\d{1,15}$/.test(value) || Number(value) < 1) throw new CliError(`${what} must be a positive integer, not "${value}".`);
  return Number(value);
}

/** A JSON object from the command line (--input, --config). */
export function jsonObjectArg(value: string, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new CliError(`${what} is not JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new CliError(`${what} must be a JSON object.`);
  return parsed as Record<string, unknown>;
}
