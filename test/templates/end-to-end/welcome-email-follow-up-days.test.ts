// welcome-email-with-follow-up's follow_up_days decides the wait between the two emails: a user
// who sets 5 gets the follow-up five days after the welcome, not the default three.
import { describe, expect, it } from "vitest";
import { call, json } from "../../helpers/api";
import { settled } from "../../helpers/runs";
import { deliver } from "./hub-delivery";
import { calls, connect, expectNoPlaceholders, newTenant, sentTo, stepReaches, timePasses, useTemplate } from "./harness";

async function deployed(variables: Record<string, unknown>) {
  const tenant = await newTenant("welcomedays");
  const resend = await connect(tenant.key, "resend", { api_key: "re_test_0123456789abcdef", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "welcome-email-with-follow-up", { deploy: true, connections: { resend }, variables });
  return { ...tenant, agent: data.agent };
}

/** Days between the wait's start and its wake-up. */
async function waitDays(key: string, id: string) {
  const wait = (await json(await call(`/v1/executions/${id}`, { token: key }))).steps.find((s: any) => s.step_id === "wait");
  return (Date.parse(wait.resume_at) - Date.parse(wait.started_at)) / 86_400_000;
}

describe("welcome-email-with-follow-up: follow_up_days", () => {
  it("waits the days the user set, then sends the follow-up", async () => {
    const { key, scenario, agent } = await deployed({ follow_up_days: 5, sender: "Ada at Acme <ada@acme.com>" });
    const id = await deliver(agent, { email: "new@example.com", first_name: "Grace" });
    await stepReaches(id, "wait", "waiting");
    expect(await waitDays(key, id)).toBeCloseTo(5, 3);
    expect(calls(await sentTo(scenario))).toEqual(["POST /emails"]);

    await timePasses(id, "wait");
    const run = await settled(key, id);
    expect(run.status).toBe("succeeded");
    expect(run.steps.find((s: any) => s.step_id === "wait").result).toEqual({ waited_seconds: 5 * 86400 });
    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /emails", "POST /emails"]);
    expect(sent.map((r) => r.body)).toEqual([
      { from: "Ada at Acme <ada@acme.com>", to: "new@example.com", subject: "Welcome aboard, Grace!", html: "<p>Thanks for subscribing, Grace.</p>" },
      {
        from: "Ada at Acme <ada@acme.com>",
        to: "new@example.com",
        subject: "Getting started tips",
        html: "<p>Here are three ways to get value on day one…</p>",
      },
    ]);
    expectNoPlaceholders(sent);
  });

  it("waits three days by default", async () => {
    const { key, agent } = await deployed({});
    const id = await deliver(agent, { email: "other@example.com" });
    await stepReaches(id, "wait", "waiting");
    expect(await waitDays(key, id)).toBeCloseTo(3, 3);
    await call(`/v1/executions/${id}/cancel`, { method: "POST", token: key });
  });

  it("fails the wait, naming the value, when follow_up_days is not a number of days", async () => {
    const { key, scenario, agent } = await deployed({ follow_up_days: 45 });
    const run = await settled(key, await deliver(agent, { email: "late@example.com" }));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "wait" });
    expect(run.error_message).toContain("The delay's seconds must be a number from 0 to 2592000");
    // The welcome went out; the impossible follow-up is not silently dropped or sent early.
    expect(calls(await sentTo(scenario))).toEqual(["POST /emails"]);
  });
});
