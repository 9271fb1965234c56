// The Google Sheets API v4 (developers.google.com/sheets/api/reference/rest): one spreadsheet,
// SHEET_ID, whose "Leads" sheet starts with a header row and two leads; appends are kept per
// scenario. Ranges are A1 notation in the path; an unknown sheet is Google's 400 "Unable to parse
// range", an unknown spreadsheet its 404.
import { Answer } from "../fake-kit.mjs";
import { googleError } from "./google-errors.mjs";

export const SHEET_ID = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
const sheets = new Map();

const valuesOf = (scenario) => {
  if (!sheets.has(scenario))
    sheets.set(scenario, [
      ["Name", "Email", "Score"],
      ["Ada", "ada@example.com", "90"],
      ["Grace", "grace@example.com", "85"],
    ]);
  return sheets.get(scenario);
};

const columnLetter = (count) => String.fromCharCode(64 + Math.max(1, count));

/** The spreadsheet and the sheet of an A1 range, or the error Google answers. */
function target(m) {
  if (m[1] !== SHEET_ID) return { error: googleError(404, "NOT_FOUND", "Requested entity was not found.", "notFound") };
  const range = decodeURIComponent(m[2]);
  const sheet = range.split("!")[0].replace(/^'|'$/g, "");
  if (sheet !== "Leads") return { error: googleError(400, "INVALID_ARGUMENT", `Unable to parse range: ${range}`, "badRequest") };
  return { range };
}

function read(req, m) {
  const { error } = target(m);
  if (error) return error;
  const values = valuesOf(req.scenario);
  const width = Math.max(...values.map((row) => row.length));
  return { range: `Leads!A1:${columnLetter(width)}${values.length}`, majorDimension: "ROWS", values };
}

function append(req, m) {
  const { error } = target(m);
  if (error) return error;
  if (!["USER_ENTERED", "RAW"].includes(req.query.valueInputOption))
    return googleError(400, "INVALID_ARGUMENT", "Invalid valueInputOption: INPUT_VALUE_OPTION_UNSPECIFIED", "badRequest");
  const values = valuesOf(req.scenario);
  const rows = (req.body?.values ?? []).map((row) => row.map((cell) => (cell === null ? "" : String(cell))));
  const first = values.length + 1;
  values.push(...rows);
  const width = Math.max(...rows.map((row) => row.length));
  return {
    spreadsheetId: SHEET_ID,
    tableRange: `Leads!A1:C${first - 1}`,
    updates: {
      spreadsheetId: SHEET_ID,
      updatedRange: `Leads!A${first}:${columnLetter(width)}${values.length}`,
      updatedRows: rows.length,
      updatedColumns: width,
      updatedCells: rows.reduce((sum, row) => sum + row.length, 0),
    },
  };
}

function update(req, m) {
  const { error, range } = target(m);
  if (error) return error;
  const rows = req.body?.values ?? [];
  if (req.body?.range && req.body.range !== range)
    return googleError(400, "INVALID_ARGUMENT", `Requested writing within range [${range}], but tried writing to [${req.body.range}]`, "badRequest");
  return {
    spreadsheetId: SHEET_ID,
    updatedRange: range,
    updatedRows: rows.length,
    updatedColumns: Math.max(...rows.map((row) => row.length)),
    updatedCells: rows.reduce((sum, row) => sum + row.length, 0),
  };
}

export const googleSheetsRoutes = [
  ["GET", /^\/v4\/spreadsheets\/([\w-]+)\/values\/([^/]+)$/, read],
  ["POST", /^\/v4\/spreadsheets\/([\w-]+)\/values\/([^/]+):append$/, append],
  ["PUT", /^\/v4\/spreadsheets\/([\w-]+)\/values\/([^/]+)$/, update],
  [
    "GET",
    /^\/v4\/spreadsheets\/([\w-]+)$/,
    (_req, m) =>
      m[1] === SHEET_ID
        ? {
            spreadsheetId: SHEET_ID,
            properties: { title: "Leads 2026" },
            sheets: [{ properties: { sheetId: 0, title: "Leads", index: 0, gridProperties: { rowCount: 1000, columnCount: 26 } } }],
          }
        : new Answer(404, { error: { code: 404, message: "Requested entity was not found.", status: "NOT_FOUND" } }),
  ],
];
