import { SQL, getTableColumns, is, sql, type SQLWrapper } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";

/**
 * The select list of an `INSERT … SELECT` into `table`: every column in table order (as
 * drizzle's insert-select expects), each from `copied` (an expression over the selected-from
 * table), else from `values`, else its default. With it a row is written only if the SELECT
 * finds something, so one statement checks and inserts (a guard inside a D1 batch).
 * (The tables it serves have no generated column, which drizzle would leave out of the list.)
 */
export function insertSelectList<T extends SQLiteTable>(
  table: T,
  values: Partial<Record<keyof T["$inferInsert"], unknown>>,
  copied: Partial<Record<keyof T["$inferInsert"], SQLWrapper>> = {},
): SQL {
  const columns = Object.entries(getTableColumns(table)) as [keyof T["$inferInsert"], SQLiteColumn][];
  const selected = columns.map(([key, column]) => {
    const copy = copied[key];
    if (copy) return copy;
    if (values[key] !== undefined) return sql.param(values[key], column);
    if (is(column.default, SQL)) return column.default;
    return column.default === undefined ? sql`null` : sql.param(column.default, column);
  });
  return sql.join(selected, sql`, `);
}
