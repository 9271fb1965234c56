import { type Column, fillPlaceholders, sql } from "drizzle-orm";

/**
 * Statements whose SQL text drizzle builds once, with placeholders, and which are then bound to
 * new values on every use. Building the text is most of the CPU a drizzle statement costs: in a
 * profile of pure workflow runs under load it was a quarter of the Worker's time, all of it
 * rebuilding the same few checkpoint statements. Values are bound as given: encode them for their
 * columns first (`encodeFor`).
 */
export interface BuiltStatement {
  sql: string;
  params: unknown[];
}

const built = new Map<string, BuiltStatement>();

/** The statement `key` names, built by `build` the first time (keys must say everything that changes the text). */
export function prepareOnce(d1: D1Database, key: string, build: () => BuiltStatement, values: Record<string, unknown>): D1PreparedStatement {
  let statement = built.get(key);
  if (!statement) {
    statement = build();
    built.set(key, statement);
  }
  return d1.prepare(statement.sql).bind(...fillPlaceholders(statement.params, values).map((value) => value ?? null));
}

/** A named value in a statement built once; a plain SQL slot, so drizzle leaves its encoding to us. */
export const slot = (name: string) => sql`${sql.placeholder(name)}`;

/** A value as drizzle would bind it for `column` (JSON as text, timestamps as milliseconds); null stays null. */
export const encodeFor = (column: Column, value: unknown) => (value === null || value === undefined ? null : column.mapToDriverValue(value));
