// monthly-audience-growth, deployed on its monthly schedule and run through its agent: each
// Mailchimp audience becomes one Airtable row (date, audience, members) in the table named, and a
// table without the template's fields fails the run with Airtable's own words.
import { describe, expect, it } from "vitest";
import { calls, connect, expectNoPlaceholders, expectSucceeded, newTenant, runAgent, script, sentTo, useTemplate } from "./harness";

const BASE = "appAcmeGrowth0001";

async function deployed(table: string) {
  const tenant = await newTenant("growth");
  const mailchimp = await connect(tenant.key, "mailchimp", { api_key: "0123456789abcdef0123456789abcdef-us21", base_url: tenant.base_url });
  const airtable = await connect(tenant.key, "airtable", { access_token: "patAcme.0123456789abcdef", default_base_id: BASE, base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "monthly-audience-growth", { deploy: true, connections: { mailchimp, airtable }, variables: { table } });
  expect(data.agent).toMatchObject({ trigger_type: "schedule", trigger: { type: "schedule" } });
  return { ...tenant, agentId: data.agent.agent_id as string };
}

describe("monthly-audience-growth", () => {
  it("records one row per audience, with its member count as a number, in the table named", async () => {
    const { key, scenario, agentId } = await deployed("Audience sizes");
    const run = await runAgent(key, agentId);
    expectSucceeded(run);

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["GET /lists", `POST /${BASE}/Audience%20sizes`, `POST /${BASE}/Audience%20sizes`, `POST /${BASE}/Audience%20sizes`]);
    expect(sent[0].query).toMatchObject({ count: "1000" });
    const rows = sent.slice(1).map((r) => r.body);
    expect(rows.map((r) => ({ ...r, fields: { ...r.fields, Date: "(date)" } }))).toEqual([
      { fields: { Date: "(date)", Audience: "Newsletter", Members: 1200 }, typecast: true },
      { fields: { Date: "(date)", Audience: "Customers", Members: 300 }, typecast: true },
      { fields: { Date: "(date)", Audience: "Webinar", Members: 85 }, typecast: true },
    ]);
    // One date for the whole month's rows: the run's.
    expect(new Set(rows.map((r) => r.fields.Date)).size).toBe(1);
    expect(Math.abs(Date.parse(rows[0].fields.Date) - Date.now())).toBeLessThan(60_000);
    expectNoPlaceholders(sent);
  });

  it("a table without the template's fields fails the run with Airtable's 422, after one request", async () => {
    const { key, scenario, agentId } = await deployed("Growth");
    await script(scenario, [
      { body: { lists: [{ id: "a1b2c3d4e5", name: "Newsletter", stats: { member_count: 1200 } }], total_items: 1 } },
      { status: 422, body: { error: { type: "UNKNOWN_FIELD_NAME", message: 'Unknown field name: "Members"' } } },
    ]);
    const run = await runAgent(key, agentId);
    expect(run.status).toBe("failed");
    expect(run.error_message).toContain('Unknown field name: "Members"');
    expect(calls(await sentTo(scenario))).toEqual(["GET /lists", `POST /${BASE}/Growth`]);
  });
});
