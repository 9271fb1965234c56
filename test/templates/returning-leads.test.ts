// The featured template lead-form-to-crm-and-slack, end to end against the fake platforms: a lead
// who fills the form twice gets HubSpot's 409 the second time, which updates their contact, and
// the sales channel hears about both visits.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { execute, settled } from "../helpers/runs";

const FAKE = () => env.TEST_FAKE_URL;

async function connect(key: string, platform: string, config: Record<string, unknown>): Promise<number> {
  const response = await call("/v1/connections", { token: key, json: { platform, name: `${platform} for leads`, config } });
  expect(response.status).toBe(201);
  return (await json(response)).connection_id;
}

const lead = (email: string, company: string) => ({ email, first_name: "Ada", last_name: "Lovelace", company });

describe("lead-form-to-crm-and-slack", () => {
  it("a returning lead updates their HubSpot contact and still alerts Slack", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = `leads${crypto.randomUUID().replace(/-/g, "")}`;
    const base_url = `${FAKE()}/s/${scenario}`;
    const hubspot = await connect(key, "hubspot", { access_token: "pat-na1-test-0123456789", base_url });
    const slack = await connect(key, "slack", { bot_token: "xoxb-test-0123456789", base_url });
    const used = await call("/v1/templates/lead-form-to-crm-and-slack/use", {
      token: key,
      json: { connections: { hubspot, slack }, variables: { sales_channel: "#leads" } },
    });
    expect(used.status).toBe(201);
    const workflow = (await json(used)).data;

    const first = await settled(key, await execute(key, workflow.id, lead("ada@example.com", "Analytical Engines")));
    expect(first.status).toBe("succeeded");
    expect(first.steps[0].result).toMatchObject({ id: "151", created: true });

    // The same person again, from a new company: HubSpot answers 409 to the create.
    const second = await settled(key, await execute(key, workflow.id, lead("ada@example.com", "Babbage & Co")));
    expect(second.status).toBe("succeeded");
    expect(second.steps.map((s: any) => [s.step_id, s.status, s.attempts])).toEqual([
      ["contact", "succeeded", 1],
      ["alert", "succeeded", 1],
    ]);
    expect(second.steps[0].result).toMatchObject({ id: "151", created: false, properties: { company: "Babbage & Co" } });

    const requests: any[] = await (await fetch(`${FAKE()}/__requests/${scenario}`)).json();
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /crm/v3/objects/contacts",
      "POST /chat.postMessage",
      "POST /crm/v3/objects/contacts",
      "PATCH /crm/v3/objects/contacts/151",
      "POST /chat.postMessage",
    ]);
    const alerts = requests.filter((r) => r.path === "/chat.postMessage").map((r) => r.body);
    expect(alerts).toEqual([
      { channel: "#leads", text: "Lead: Ada Lovelace (ada@example.com) from Analytical Engines, HubSpot contact 151" },
      { channel: "#leads", text: "Lead: Ada Lovelace (ada@example.com) from Babbage & Co, HubSpot contact 151" },
    ]);
  });
});
