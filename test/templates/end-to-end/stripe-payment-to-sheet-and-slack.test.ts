// stripe-payment-to-sheet-and-slack, deployed with a Google Sheets connection made through OAuth
// and fed Stripe's charge.succeeded: every payment becomes a row of the chosen range, and only
// payments of at least slack_min_amount reach the chosen channel (a zero-decimal currency counted
// in its own units). A range naming a sheet that does not exist fails with Google's reason.
import { describe, expect, it } from "vitest";
import { settled } from "../../helpers/runs";
import { connectedWithOAuth } from "../../connections/platforms/platform-test-kit";
import { FAKE, calls, connect, expectNoPlaceholders, sentTo, useTemplate } from "./harness";
import { stripeSender } from "./provider-delivery";

const SHEET = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

/** A charge as Stripe's charge.succeeded carries it (the fields the template reads, and more). */
const charge = (n: number, amount: number, currency: string, email: string) => ({
  id: `ch_3Q${n}abcdef`,
  object: "charge",
  amount,
  amount_captured: amount,
  currency,
  paid: true,
  status: "succeeded",
  billing_details: { email, name: "Ada Lovelace" },
  receipt_email: null,
  created: 1763812800, // 2025-11-22T12:00:00Z
});

async function deployed(variables: Record<string, unknown>) {
  const sheets = await connectedWithOAuth("google_sheets");
  const key = sheets.person.key;
  const slack = await connect(key, "slack", { bot_token: "xoxb-payments-0123456789", base_url: `${FAKE()}/s/${sheets.scenario}` });
  const data = await useTemplate(key, "stripe-payment-to-sheet-and-slack", {
    deploy: true,
    connections: { google_sheets: sheets.connectionId, slack },
    variables: { spreadsheet_id: SHEET, ...variables },
  });
  return { key, scenario: sheets.scenario, send: await stripeSender(key, data.agent.agent_id) };
}

describe("stripe-payment-to-sheet-and-slack", () => {
  it("logs every payment in the chosen range and posts those of at least slack_min_amount to the chosen channel", async () => {
    const { key, scenario, send } = await deployed({ range: "Leads!A:E", channel: "#payments", slack_min_amount: 50 });
    expect((await settled(key, await send("charge.succeeded", charge(1, 12050, "eur", "ada@example.com")))).status).toBe("succeeded");
    expect((await settled(key, await send("charge.succeeded", charge(2, 900, "eur", "grace@example.com")))).status).toBe("succeeded");
    expect((await settled(key, await send("charge.succeeded", charge(3, 5000, "jpy", "yuki@example.jp")))).status).toBe("succeeded");

    const sent = await sentTo(scenario);
    const append = `POST /v4/spreadsheets/${SHEET}/values/Leads!A%3AE:append`;
    expect(calls(sent)).toEqual([append, "POST /chat.postMessage", append, append, "POST /chat.postMessage"]);
    expect(sent[0].query).toEqual({ valueInputOption: "USER_ENTERED", insertDataOption: "INSERT_ROWS", includeValuesInResponse: "false" });
    expect(sent[0].body).toEqual({ majorDimension: "ROWS", values: [["2025-11-22", "ada@example.com", "120.50", "EUR", "ch_3Q1abcdef"]] });
    expect(sent[1].body).toEqual({ channel: "#payments", text: "Payment: 120.50 EUR from ada@example.com (ch_3Q1abcdef)" });
    expect(sent[2].body.values).toEqual([["2025-11-22", "grace@example.com", "9.00", "EUR", "ch_3Q2abcdef"]]);
    // Yen have no cents: 5000 is ¥5,000, above the threshold.
    expect(sent[3].body.values).toEqual([["2025-11-22", "yuki@example.jp", "5000", "JPY", "ch_3Q3abcdef"]]);
    expect(sent[4].body).toEqual({ channel: "#payments", text: "Payment: 5000 JPY from yuki@example.jp (ch_3Q3abcdef)" });
    expectNoPlaceholders(sent);

    // Another event of the same endpoint (a refund) starts no run and writes nothing.
    const refunded = await send.raw("charge.refunded", { ...charge(5, 12050, "eur", "ada@example.com"), refunded: true });
    expect(refunded.status).toBe(200);
    expect(await refunded.json()).toEqual({ ignored: true });
    expect(await sentTo(scenario)).toHaveLength(5);
  });

  it("fails with Google's 400 when the range names a sheet the spreadsheet does not have, and posts nothing", async () => {
    const { key, scenario, send } = await deployed({});
    const run = await settled(key, await send("charge.succeeded", charge(4, 4200, "usd", "ada@example.com")));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "row" });
    expect(run.error_message).toContain("Unable to parse range: Payments!A:E");
    expect(calls(await sentTo(scenario))).toEqual([`POST /v4/spreadsheets/${SHEET}/values/Payments!A%3AE:append`]);
  });
});
