// vip-discount-manager-approval, deployed and fed through its signed webhook: a discount over the
// threshold waits for a manager (discount.approved) and mails the percent approved, or the
// standard percent when nobody answers in a day; one within the threshold is mailed as asked.
import { describe, expect, it } from "vitest";
import { call } from "../../helpers/api";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, expectSucceeded, newTenant, sentTo, stepReaches, timePasses, useTemplate } from "./harness";
import { deliver } from "./hub-delivery";

async function deployed(variables: Record<string, unknown>) {
  const tenant = await newTenant("vip");
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-vip-0123456789", base_url: tenant.base_url });
  const resend = await connect(tenant.key, "resend", { api_key: "re_test_vip_0123456789", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "vip-discount-manager-approval", { deploy: true, connections: { slack, resend }, variables });
  return { ...tenant, agent: data.agent };
}

const mails = async (scenario: string) => (await sentTo(scenario)).filter((r) => r.path === "/emails").map((r) => [r.body.to, r.body.html]);

describe("vip-discount-manager-approval", () => {
  it("asks the managers over the threshold, then mails what they approved, or the standard percent on no answer", async () => {
    const { key, scenario, agent } = await deployed({ threshold: 20, standard_percent: 12, manager_channel: "#vip-approvals" });

    const approved = await deliver(agent, { email: "ada@example.com", percent: 30 });
    await stepReaches(approved, "approve", "waiting");
    const answer = await call(`/v1/executions/${approved}/events`, { token: key, json: { event: "discount.approved", payload: { percent: 25 } } });
    expect(answer.status).toBeLessThan(300);
    expectSucceeded(await settled(key, approved));

    const unanswered = await deliver(agent, { email: "bob@example.com", percent: 40 });
    await stepReaches(unanswered, "approve", "waiting");
    await timePasses(unanswered, "approve");
    expectSucceeded(await settled(key, unanswered));

    expectSucceeded(await settled(key, await deliver(agent, { email: "cy@example.com", percent: 15 })));

    const sent = await sentTo(scenario);
    const asks = sent.filter((r) => r.path === "/chat.postMessage").map((r) => r.body);
    expect(asks).toEqual([
      { channel: "#vip-approvals", text: `Approve 30% for ada@example.com? Run ${approved} waits for discount.approved.` },
      { channel: "#vip-approvals", text: `Approve 40% for bob@example.com? Run ${unanswered} waits for discount.approved.` },
    ]);
    expect(await mails(scenario)).toEqual([
      ["ada@example.com", "<p>25% off your next order.</p>"],
      ["bob@example.com", "<p>12% off your next order.</p>"],
      ["cy@example.com", "<p>15% off your next order.</p>"],
    ]);
    expectNoPlaceholders(sent);
  });

  it("a manager channel the bot is not in fails the run with not_in_channel, and no discount is mailed", async () => {
    const { key, scenario, agent } = await deployed({ manager_channel: "#random" });
    const run = await settled(key, await deliver(agent, { email: "ada@example.com", percent: 50 }));
    expect(run.status).toBe("failed");
    expect(run.error_message).toContain("not_in_channel");
    expect(calls(await sentTo(scenario))).toEqual(["POST /chat.postMessage"]);
  });
});
