// Google Sheets' tools on a connection made with Google's OAuth (the fake provider), against the
// fake of the Sheets API v4: A1 ranges in the path, values as rows, appends that land below the
// table, rows newest first for a 'new row' trigger, and Google's error body.
import { describe, expect, it } from "vitest";
import { connectedWithOAuth, expectCall, jsonOf, onlyRequestOf, requestsOf } from "./platform-test-kit";

const SHEET = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

describe("Google Sheets", () => {
  it("asks Google for the spreadsheets scope, appends a row (USER_ENTERED, INSERT_ROWS) and says where it landed", async () => {
    const { authorize, execute, scenario } = await connectedWithOAuth("google_sheets");
    expect(authorize).toMatchObject({ scope: "https://www.googleapis.com/auth/spreadsheets" });
    const out = await execute("google_sheets_append_rows", { spreadsheet_id: SHEET, range: "Leads!A:C", rows: [["Linus", "linus@example.com", 70]] });
    expect(out, JSON.stringify(out)).toMatchObject({
      success: true,
      result: { table_range: "Leads!A1:C3", updated_range: "Leads!A4:C4", updated_rows: 1, updated_cells: 3 },
    });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", `/v4/spreadsheets/${SHEET}/values/Leads!A%3AC:append`, {
      valueInputOption: "USER_ENTERED",
      insertDataOption: "INSERT_ROWS",
      includeValuesInResponse: "false",
    });
    expect(request.headers.authorization).toMatch(/^Bearer \S{10,}$/);
    expect(jsonOf(request)).toEqual({ majorDimension: "ROWS", values: [["Linus", "linus@example.com", 70]] });

    // The new row is the newest one listed, with its values by column name.
    const listed = await execute("google_sheets_list_rows", { spreadsheet_id: SHEET, range: "Leads", limit: 2 });
    expect(listed.result).toEqual({
      range: "Leads!A1:C4",
      columns: ["Name", "Email", "Score"],
      rows: [
        { row_number: 4, values: ["Linus", "linus@example.com", "70"], fields: { Name: "Linus", Email: "linus@example.com", Score: "70" } },
        { row_number: 3, values: ["Grace", "grace@example.com", "85"], fields: { Name: "Grace", Email: "grace@example.com", Score: "85" } },
      ],
      next_cursor: expect.any(String),
    });
    // The rest of the range on the next page, and no page after it.
    const rest = await execute("google_sheets_list_rows", { spreadsheet_id: SHEET, range: "Leads", limit: 2, cursor: listed.result.next_cursor });
    expect(rest.result).toMatchObject({ rows: [{ row_number: 2, values: ["Ada", "ada@example.com", "90"] }], next_cursor: null });
    expectCall((await requestsOf(scenario))[1]!, "GET", `/v4/spreadsheets/${SHEET}/values/Leads`, {
      majorDimension: "ROWS",
      valueRenderOption: "FORMATTED_VALUE",
    });
  });

  it("reads a range's values, overwrites a range, and reads the spreadsheet's sheets", async () => {
    const { execute, scenario } = await connectedWithOAuth("google_sheets");
    const values = await execute("google_sheets_get_values", { spreadsheet_id: SHEET, range: "'Leads'!A1:C3" });
    expect(values.result).toEqual({
      range: "Leads!A1:C3",
      values: [
        ["Name", "Email", "Score"],
        ["Ada", "ada@example.com", "90"],
        ["Grace", "grace@example.com", "85"],
      ],
    });
    const updated = await execute("google_sheets_update_values", { spreadsheet_id: SHEET, range: "Leads!C2", rows: [[95]], value_input_option: "RAW" });
    expect(updated.result).toEqual({ updated_range: "Leads!C2", updated_rows: 1, updated_cells: 1 });
    const info = await execute("google_sheets_get_spreadsheet", { spreadsheet_id: SHEET });
    expect(info.result).toEqual({ id: SHEET, title: "Leads 2026", sheets: [{ sheet_id: 0, title: "Leads", rows: 1000, columns: 26 }] });

    const requests = await requestsOf(scenario);
    expectCall(requests[0]!, "GET", `/v4/spreadsheets/${SHEET}/values/'Leads'!A1%3AC3`, { majorDimension: "ROWS", valueRenderOption: "FORMATTED_VALUE" });
    expectCall(requests[1]!, "PUT", `/v4/spreadsheets/${SHEET}/values/Leads!C2`, { valueInputOption: "RAW" });
    expect(jsonOf(requests[1]!)).toEqual({ range: "Leads!C2", majorDimension: "ROWS", values: [[95]] });
    expectCall(requests[2]!, "GET", `/v4/spreadsheets/${SHEET}`, { fields: "spreadsheetId,properties.title,sheets.properties" });
  });

  it("refuses a range that is a dot segment before calling Google, so it cannot reach the spreadsheet itself", async () => {
    const { execute, scenario } = await connectedWithOAuth("google_sheets");
    // GET …/values/.. would be read as GET /v4/spreadsheets/{id}: the spreadsheet's metadata, not a range.
    for (const range of ["..", ".", "%2E%2E"]) {
      const out = await execute("google_sheets_get_values", { spreadsheet_id: SHEET, range });
      expect(out, range).toMatchObject({
        success: false,
        error_status: 400,
        retryable: false,
        error_message: `The path parameter range cannot be "${range}".`,
      });
    }
    const written = await execute("google_sheets_update_values", { spreadsheet_id: SHEET, range: "..", rows: [["x"]] });
    expect(written).toMatchObject({ success: false, error_status: 400, error_message: 'The path parameter range cannot be "..".' });
    expect(await requestsOf(scenario)).toEqual([]);
    // A range that merely holds dots is still a range.
    const dotted = await execute("google_sheets_get_values", { spreadsheet_id: SHEET, range: "'Q1..Q2'!A1" });
    expect(dotted).toMatchObject({ success: false, error_status: 400, error_message: "Google Sheets answered 400: Unable to parse range: 'Q1..Q2'!A1" });
    expectCall((await requestsOf(scenario))[0]!, "GET", `/v4/spreadsheets/${SHEET}/values/'Q1..Q2'!A1`, {
      majorDimension: "ROWS",
      valueRenderOption: "FORMATTED_VALUE",
    });
  });

  it("a sheet that does not exist is Google's 400 'Unable to parse range', not retried", async () => {
    const { execute } = await connectedWithOAuth("google_sheets");
    const out = await execute("google_sheets_append_rows", { spreadsheet_id: SHEET, range: "Nope!A:C", rows: [["x"]] });
    expect(out).toMatchObject({
      success: false,
      error_status: 400,
      retryable: false,
      error_message: "Google Sheets answered 400: Unable to parse range: Nope!A:C",
    });
  });
});
