// stripe-refund-with-email-and-slack, deployed (a manual trigger) and run by a support person with
// a charge and the customer's email: the whole charge is refunded as requested by the customer,
// the customer is told the amount from the chosen sender, and the chosen channel logs it. Stripe's
// refusal of a charge already refunded fails the run before anyone is told.
import { describe, expect, it } from "vitest";
import { calls, connect, expectNoPlaceholders, newTenant, runAgent, sentTo, useTemplate } from "./harness";
import { formBody } from "./provider-delivery";

async function deployed() {
  const tenant = await newTenant("refund");
  const stripe = await connect(tenant.key, "stripe", { secret_key: "sk_test_refund0123456789", base_url: tenant.base_url });
  const postmark = await connect(tenant.key, "postmark", { server_token: "pm-refund-token-0123456789", base_url: tenant.base_url });
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-refund-0123456789", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "stripe-refund-with-email-and-slack", {
    deploy: true,
    connections: { stripe, postmark, slack },
    variables: { sender: "Tea Club Care <care@tea.example>", channel: "#refunds" },
  });
  return { ...tenant, agentId: data.agent.agent_id as string };
}

describe("stripe-refund-with-email-and-slack", () => {
  it("refunds the charge, emails the customer the amount from the chosen sender, and logs it in the chosen channel", async () => {
    const { key, scenario, agentId } = await deployed();
    const run = await runAgent(key, agentId, { charge_id: "ch_2", email: "buyer2@example.com" });
    expect(run.status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /v1/refunds", "POST /email", "POST /chat.postMessage"]);
    expect(formBody(sent[0])).toEqual({ charge: "ch_2", reason: "requested_by_customer" });
    expect(sent[1].body).toEqual({
      From: "Tea Club Care <care@tea.example>",
      To: "buyer2@example.com",
      Subject: "Your refund is on its way",
      TextBody: "We refunded 20.00 USD to your card. It shows up within 5-10 business days.",
      Tag: "refund",
      MessageStream: "outbound",
    });
    expect(sent[2].body).toEqual({ channel: "#refunds", text: "Refunded 20.00 USD of ch_2 to buyer2@example.com (re_1)" });
    expectNoPlaceholders(sent);
  });

  it("fails with Stripe's reason for a charge already refunded, and tells no one", async () => {
    const { key, scenario, agentId } = await deployed();
    const run = await runAgent(key, agentId, { charge_id: "ch_3", email: "buyer3@example.com" });
    expect(run).toMatchObject({ status: "failed", failed_step_id: "refund" });
    expect(run.error_message).toContain("Charge ch_3 has already been refunded.");
    expect(calls(await sentTo(scenario))).toEqual(["POST /v1/refunds"]);
  });
});
