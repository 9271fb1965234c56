// daily-mailgun-failed-deliveries, deployed and fired as its cron fires: Mailgun's failed events
// of the last 24 hours are listed in the chosen channel, only the permanent ones unless
// permanent_only is off. Mailgun's "Forbidden" for a wrong key fails the run before anything is posted.
import { describe, expect, it } from "vitest";
import { calls, connect, expectNoPlaceholders, newTenant, runAgent, script, sentTo, useTemplate } from "./harness";

const fire = (due_at: string) => ({ trigger: "schedule", due_at, fired_by: "alarm" });
const at = (iso: string) => Date.parse(iso) / 1000;

/** A failed event as GET /v3/{domain}/events lists it. */
const failed = (id: string, recipient: string, when: string, severity: string, reason: string) => ({
  id,
  event: "failed",
  recipient,
  timestamp: at(when),
  severity,
  reason: severity === "permanent" ? "bounce" : "generic",
  "delivery-status": { code: severity === "permanent" ? 550 : 421, message: reason },
  message: { headers: { "message-id": `${id}@mg.acme.test` } },
});
const events = {
  body: {
    items: [
      failed("e3", "gone@example.com", "2026-11-24T06:00:00Z", "permanent", "550 5.1.1 The email account does not exist"),
      failed("e2", "busy@example.com", "2026-11-23T12:00:00Z", "temporary", "421 4.7.0 Try again later"),
      failed("e1", "older@example.com", "2026-11-23T06:59:59Z", "permanent", "550 5.1.1 User unknown"),
    ],
    paging: {
      next: "https://api.mailgun.net/v3/mg.acme.test/events/W3siYSI6ZmFsc2V9XQ==",
      previous: "https://api.mailgun.net/v3/mg.acme.test/events/W3siYSI6dHJ1ZX1d",
    },
  },
};

async function deployed(variables: Record<string, unknown>) {
  const tenant = await newTenant("mgfailed");
  const mailgun = await connect(tenant.key, "mailgun", { api_key: "key-0123456789abcdef0123456789abcdef", domain: "mg.acme.test", base_url: tenant.base_url });
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-mailgun-0123456789", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "daily-mailgun-failed-deliveries", { deploy: true, connections: { mailgun, slack }, variables });
  return { ...tenant, agentId: data.agent.agent_id as string };
}

describe("daily-mailgun-failed-deliveries", () => {
  it("lists the last 24 hours' permanent failures in the chosen channel", async () => {
    const { key, scenario, agentId } = await deployed({ channel: "#email-health" });
    await script(scenario, [events]);
    expect((await runAgent(key, agentId, fire("2026-11-24T07:00:00.000Z"))).status).toBe("succeeded");
    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["GET /v3/mg.acme.test/events", "POST /chat.postMessage"]);
    expect(sent[0].query).toEqual({ limit: "300", event: "failed", ascending: "no" });
    expect(sent[1].body).toEqual({
      channel: "#email-health",
      text: "1 failed deliveries in the last 24 hours:\n• gone@example.com: 550 5.1.1 The email account does not exist",
    });
    expectNoPlaceholders(sent);
  });

  it("with permanent_only off, lists temporary failures too", async () => {
    const { key, scenario, agentId } = await deployed({ channel: "#email-health", permanent_only: false });
    await script(scenario, [events]);
    expect((await runAgent(key, agentId, fire("2026-11-24T07:00:00.000Z"))).status).toBe("succeeded");
    expect((await sentTo(scenario))[1].body.text).toBe(
      "2 failed deliveries in the last 24 hours:\n• gone@example.com: 550 5.1.1 The email account does not exist\n• busy@example.com: 421 4.7.0 Try again later",
    );
  });

  it("fails with Mailgun's Forbidden when the key is wrong, and posts nothing", async () => {
    const { key, scenario, agentId } = await deployed({});
    // Mailgun answers a wrong key with a plain-text 401.
    await script(scenario, [{ status: 401, body: "Forbidden", headers: { "Content-Type": "text/plain" } }]);
    const run = await runAgent(key, agentId, fire("2026-11-24T07:00:00.000Z"));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "failed" });
    expect(run.error_message).toContain("Forbidden");
    expect(calls(await sentTo(scenario))).toEqual(["GET /v3/mg.acme.test/events"]);
  });
});
