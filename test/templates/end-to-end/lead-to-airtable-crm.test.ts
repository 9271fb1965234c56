// lead-to-airtable-crm, deployed and fed through its signed webhook: each lead becomes a record in
// the table named (a lead form's missing name and source filled in), and a table without the
// template's fields fails the run with Airtable's 422.
import { describe, expect, it } from "vitest";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, expectSucceeded, newTenant, script, sentTo, useTemplate } from "./harness";
import { deliver } from "./hub-delivery";

const BASE = "appAcmeLeadsCrm01";

async function deployed(variables: Record<string, unknown>) {
  const tenant = await newTenant("airtablecrm");
  const airtable = await connect(tenant.key, "airtable", { access_token: "patAcme.0123456789abcdef", default_base_id: BASE, base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "lead-to-airtable-crm", { deploy: true, connections: { airtable }, variables });
  return { ...tenant, agent: data.agent };
}

describe("lead-to-airtable-crm", () => {
  it("stores each lead in the table named, with defaults for what the form left out", async () => {
    const { key, scenario, agent } = await deployed({ table: "Inbound leads" });
    expectSucceeded(await settled(key, await deliver(agent, { name: "Ada Lovelace", email: "ada@example.com", source: "webinar" })));
    expectSucceeded(await settled(key, await deliver(agent, { email: "bob@example.com" })));

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual([`POST /${BASE}/Inbound%20leads`, `POST /${BASE}/Inbound%20leads`]);
    expect(sent.map((r) => r.body)).toEqual([
      { fields: { Name: "Ada Lovelace", Email: "ada@example.com", Source: "webinar" }, typecast: true },
      { fields: { Name: "", Email: "bob@example.com", Source: "unknown" }, typecast: true },
    ]);
    expectNoPlaceholders(sent);
  });

  it("a table without a Source field fails the run with Airtable's 422, after one request", async () => {
    const { key, scenario, agent } = await deployed({});
    await script(scenario, [{ status: 422, body: { error: { type: "UNKNOWN_FIELD_NAME", message: 'Unknown field name: "Source"' } } }]);
    const run = await settled(key, await deliver(agent, { email: "ada@example.com" }));
    expect(run.status).toBe("failed");
    expect(run.error_message).toContain('Unknown field name: "Source"');
    expect(calls(await sentTo(scenario))).toEqual([`POST /${BASE}/Leads`]);
  });
});
