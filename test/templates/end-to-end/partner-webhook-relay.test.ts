// partner-webhook-relay, deployed and fed through its signed webhook: events scoring at least
// `min_score` reach the partner's endpoint signed with the connection's secret, others do not,
// and a receiver's refusal fails the run with its status.
import { describe, expect, it } from "vitest";
import { hmac } from "../../helpers/provider-signatures";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, expectSucceeded, newTenant, script, sentTo, useTemplate } from "./harness";
import { deliver } from "./hub-delivery";

const SIGNING_SECRET = "whsec_partner_0123456789abcdef";

async function deployed(variables: Record<string, unknown>) {
  const tenant = await newTenant("relay");
  const webhook = await connect(tenant.key, "webhook", { url: `${tenant.base_url}/hook`, signing_secret: SIGNING_SECRET });
  const data = await useTemplate(tenant.key, "partner-webhook-relay", { deploy: true, connections: { webhook }, variables });
  return { ...tenant, agent: data.agent };
}

describe("partner-webhook-relay", () => {
  it("relays events at or over min_score, signed, and drops the others", async () => {
    const { key, scenario, agent } = await deployed({ min_score: 70 });
    expectSucceeded(await settled(key, await deliver(agent, { email: "ada@example.com", score: 80 })));
    // 60 would pass the default of 50: the variable decides.
    expectSucceeded(await settled(key, await deliver(agent, { email: "bob@example.com", score: 60 })));
    expectSucceeded(await settled(key, await deliver(agent, { email: "cy@example.com", score: 70 })));

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /hook", "POST /hook"]);
    expect(sent.map((r) => r.body.data)).toEqual([
      { email: "ada@example.com", score: 80 },
      { email: "cy@example.com", score: 70 },
    ]);
    for (const r of sent) {
      expect(r.body).toMatchObject({ event: "lead.qualified", sent_at: expect.any(String) });
      // The partner verifies X-Hub-Signature over "<timestamp>.<body>" with the shared secret.
      const expected = await hmac(SIGNING_SECRET, `${r.headers["x-hub-timestamp"]}.${r.raw}`, "hex");
      expect(r.headers["x-hub-signature"]).toBe(`sha256=${expected}`);
    }
    expectNoPlaceholders(sent);
  });

  it("a receiver that refuses the event (410) fails the run after one request", async () => {
    const { key, scenario, agent } = await deployed({});
    await script(scenario, [{ status: 410, body: { error: "this hook was removed" } }]);
    const run = await settled(key, await deliver(agent, { email: "ada@example.com", score: 90 }));
    expect(run.status).toBe("failed");
    expect(run.error_message).toContain("The receiver answered 410.");
    expect(calls(await sentTo(scenario))).toEqual(["POST /hook"]);
  });
});
