// Two Slack routing templates, deployed and fed through their signed webhooks: churn-risk-check
// alerts (with the owner) only under its drop_ratio, support-ticket-triage pages urgent tickets
// and queues the rest in the channels named; a channel the bot is not in fails the run with
// Slack's not_in_channel.
import { describe, expect, it } from "vitest";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, expectSucceeded, newTenant, sentTo, useTemplate } from "./harness";
import { deliver } from "./hub-delivery";

async function deployed(templateId: string, variables: Record<string, unknown>) {
  const tenant = await newTenant("slackroute");
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-route-0123456789", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, templateId, { deploy: true, connections: { slack }, variables });
  const run = async (body: Record<string, unknown>) => settled(tenant.key, await deliver(data.agent, body));
  return { ...tenant, run };
}

const usage = (account: string, now: number, before: number, owner?: string) => ({
  account,
  usage_this_month: now,
  usage_last_month: before,
  ...(owner ? { owner } : {}),
});

describe("churn-risk-check", () => {
  it("alerts the channel named, with the owner, only for accounts under drop_ratio", async () => {
    const { scenario, run } = await deployed("churn-risk-check", { drop_ratio: 0.4, channel: "#cs-alerts" });
    expectSucceeded(await run(usage("Acme", 30, 100, "@maria")));
    // 0.45 is under the default 0.5, not under 0.4.
    expectSucceeded(await run(usage("Globex", 45, 100, "@li")));
    expectSucceeded(await run(usage("Initech", 10, 200)));

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /chat.postMessage", "POST /chat.postMessage"]);
    expect(sent.map((r) => r.body)).toEqual([
      { channel: "#cs-alerts", text: "Churn risk: Acme usage is at 0.3 of last month. Owner: @maria" },
      { channel: "#cs-alerts", text: "Churn risk: Initech usage is at 0.05 of last month. Owner: unassigned" },
    ]);
    expectNoPlaceholders(sent);
  });

  it("a channel the bot is not in fails the run with Slack's not_in_channel", async () => {
    const { run } = await deployed("churn-risk-check", { channel: "#random" });
    const failed = await run(usage("Acme", 1, 100));
    expect(failed.status).toBe("failed");
    expect(failed.error_message).toContain("not_in_channel");
  });
});

describe("support-ticket-triage", () => {
  it("pages urgent tickets (keywords or high priority) and queues the rest, in the channels named", async () => {
    const { scenario, run } = await deployed("support-ticket-triage", { urgent_channel: "#incidents" });
    expectSucceeded(await run({ id: "T-1", subject: "Checkout is DOWN for everyone", priority: "normal" }));
    expectSucceeded(await run({ id: "T-2", subject: "Invoice address", priority: "high" }));
    expectSucceeded(await run({ id: "T-3", subject: "How do I export contacts?", priority: "low" }));

    const sent = await sentTo(scenario);
    expect(sent.map((r) => r.body)).toEqual([
      { channel: "#incidents", text: "URGENT ticket T-1: Checkout is DOWN for everyone" },
      { channel: "#incidents", text: "URGENT ticket T-2: Invoice address" },
      { channel: "#support", text: "New ticket T-3: How do I export contacts?" },
    ]);
    expectNoPlaceholders(sent);
  });

  it("a queue channel the bot is not in fails the run with Slack's not_in_channel", async () => {
    const { run } = await deployed("support-ticket-triage", { queue_channel: "#random" });
    const failed = await run({ id: "T-4", subject: "A question", priority: "low" });
    expect(failed.status).toBe("failed");
    expect(failed.error_message).toContain("not_in_channel");
  });
});
