import { z } from "@hono/zod-openapi";
import { OffsetCursor, nextOffsetCursor, offsetOf } from "./cursor";
import { googleOAuth, readGoogleError } from "./google-api";
import { oauthConfigFields } from "./oauth-spec";
import { requestTool } from "./request-tool";
import { baseUrlField, definePlatform } from "./types";

type SheetsConfig = { base_url?: string /** Set for each call from the connection's OAuth tokens. */; access_token?: string };

const SpreadsheetId = z.string().regex(/^[A-Za-z0-9_-]{10,100}$/, "The id in the spreadsheet's URL (/spreadsheets/d/<id>/).");
/** A1 notation: "Sheet1", "Sheet1!A1:D", "'Leads 2026'!A:Z". */
const Range = z.string().min(1).max(200).describe('A1 notation, e.g. "Sheet1!A:D" or a sheet\'s name.');
const Cell = z.union([z.string().max(50_000), z.number(), z.boolean(), z.null()]);
const Rows = z.array(z.array(Cell).max(1000)).min(1).max(10_000);
const InputOption = z
  .enum(["USER_ENTERED", "RAW"])
  .default("USER_ENTERED")
  .describe("USER_ENTERED: values are read as if typed (formulas, dates); RAW: stored as given.");

/**
 * The rows of a range as items a poll trigger can follow: each with its row number (its id, as
 * rows are appended below) and, when the first row holds column names, its values by name; the
 * newest (lowest) rows first.
 */
function rowsOf(answer: { range: string; values?: unknown[][] }, args: { header_row: boolean; limit: number; cursor?: string }) {
  const values = answer.values ?? [];
  const first = firstRowNumber(answer.range);
  const names = args.header_row ? (values[0] ?? []).map((v) => String(v ?? "")) : undefined;
  const rows = values.map((cells, index) => ({ cells, row_number: first + index })).slice(names ? 1 : 0);
  // Google answers the whole range at once: a page is a slice of it, newest first, from the
  // cursor's offset (rows appended between pages shift it; a poll reads only the first page).
  const offset = offsetOf(args.cursor);
  const page = rows.reverse().slice(offset, offset + args.limit);
  return {
    range: answer.range,
    columns: names ?? null,
    rows: page.map(({ cells, row_number }) => ({
      row_number,
      values: cells,
      ...(names ? { fields: Object.fromEntries(names.map((name, i) => [name || `column_${i + 1}`, cells[i] ?? null])) } : {}),
    })),
    next_cursor: nextOffsetCursor(offset, page.length, args.limit, rows.length),
  };
}

/** The first row of an A1 range as Google answers it ("Sheet1!A1:D20" → 1, "'Leads'!A5:C" → 5). */
function firstRowNumber(range: string): number {
  const match = /!?[A-Z]*(\d+)(?::|$)/.exec(range.slice(range.lastIndexOf("!") + 1));
  return match ? Number(match[1]) : 1;
}

export const googleSheets = definePlatform<SheetsConfig>({
  id: "google_sheets",
  name: "Google Sheets",
  description: "Append rows to, read and update Google Sheets spreadsheets (Connect with Google).",
  category: "productivity",
  authKind: "oauth2",
  config: z.object({ base_url: baseUrlField, ...oauthConfigFields }),
  secretFields: ["client_secret"],
  oauth: googleOAuth(["https://www.googleapis.com/auth/spreadsheets"]),
  defaultBaseUrl: "https://sheets.googleapis.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  readError: readGoogleError,
  polls: [{ title: "New row", action: "list_rows", arguments: { limit: 50 }, items_path: "rows", id_path: "row_number" }],
  tools: [
    requestTool({
      action: "append_rows",
      effect: "write",
      title: "Append rows to a sheet",
      description:
        "Adds rows after the last row of a table in the range (POST /v4/spreadsheets/{id}/values/{range}:append, INSERT_ROWS) and says where they landed.",
      input: z.object({ spreadsheet_id: SpreadsheetId, range: Range, rows: Rows, value_input_option: InputOption }),
      method: "POST",
      path: "/v4/spreadsheets/{spreadsheet_id}/values/{range}:append",
      query: (args) => ({ valueInputOption: args.value_input_option, insertDataOption: "INSERT_ROWS", includeValuesInResponse: false }),
      body: (args) => ({ majorDimension: "ROWS", values: args.rows }),
      result: (a) => ({
        table_range: a.tableRange ?? null,
        updated_range: a.updates?.updatedRange ?? null,
        updated_rows: a.updates?.updatedRows ?? 0,
        updated_cells: a.updates?.updatedCells ?? 0,
      }),
    }),
    requestTool({
      action: "get_values",
      effect: "read",
      title: "Read a range of a sheet",
      description:
        "Reads the cells of a range, row by row (GET /v4/spreadsheets/{id}/values/{range}); empty trailing cells and rows are left out, as Google does.",
      input: z.object({ spreadsheet_id: SpreadsheetId, range: Range }),
      method: "GET",
      path: "/v4/spreadsheets/{spreadsheet_id}/values/{range}",
      query: () => ({ majorDimension: "ROWS", valueRenderOption: "FORMATTED_VALUE" }),
      result: (a) => ({ range: a.range, values: a.values ?? [] }),
    }),
    requestTool({
      action: "list_rows",
      effect: "read",
      title: "List a sheet's rows, newest first",
      description:
        "Reads a range's rows with their row numbers, the last rows first, and their values by column name when the first row holds the names. Row numbers are the ids of a 'new row' poll trigger (items_path: rows, id_path: row_number). A page at a time: pass next_cursor as cursor (null: no more).",
      input: z.object({
        spreadsheet_id: SpreadsheetId,
        range: Range,
        header_row: z.boolean().default(true).describe("The range's first row names the columns."),
        limit: z.number().int().min(1).max(1000).default(100),
        cursor: OffsetCursor.optional(),
      }),
      method: "GET",
      path: "/v4/spreadsheets/{spreadsheet_id}/values/{range}",
      query: () => ({ majorDimension: "ROWS", valueRenderOption: "FORMATTED_VALUE" }),
      result: rowsOf,
    }),
    requestTool({
      action: "update_values",
      effect: "write",
      title: "Update a range of a sheet",
      description: "Writes rows of values over a range (PUT /v4/spreadsheets/{id}/values/{range}).",
      input: z.object({ spreadsheet_id: SpreadsheetId, range: Range, rows: Rows, value_input_option: InputOption }),
      method: "PUT",
      path: "/v4/spreadsheets/{spreadsheet_id}/values/{range}",
      query: (args) => ({ valueInputOption: args.value_input_option }),
      body: (args) => ({ range: args.range, majorDimension: "ROWS", values: args.rows }),
      result: (a) => ({ updated_range: a.updatedRange, updated_rows: a.updatedRows ?? 0, updated_cells: a.updatedCells ?? 0 }),
    }),
    requestTool({
      action: "get_spreadsheet",
      effect: "read",
      title: "Get a spreadsheet's sheets",
      description: "Reads a spreadsheet's title and its sheets' names and sizes (GET /v4/spreadsheets/{id}).",
      input: z.object({ spreadsheet_id: SpreadsheetId }),
      method: "GET",
      path: "/v4/spreadsheets/{spreadsheet_id}",
      query: () => ({ fields: "spreadsheetId,properties.title,sheets.properties" }),
      result: (s) => ({
        id: s.spreadsheetId,
        title: s.properties?.title ?? null,
        sheets: (s.sheets ?? []).map((sheet: any) => ({
          sheet_id: sheet.properties?.sheetId,
          title: sheet.properties?.title,
          rows: sheet.properties?.gridProperties?.rowCount ?? null,
          columns: sheet.properties?.gridProperties?.columnCount ?? null,
        })),
      }),
    }),
  ],
});
