// failed-payment-sms-and-slack, deployed and fed Stripe's invoice.payment_failed: the chosen
// channel hears of every failed invoice, and a customer with a phone gets an SMS with the
// invoice's payment link, signed with the company's name. Twilio's refusal of an unverified
// number (a trial account) fails the run after the team was told.
import { describe, expect, it } from "vitest";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, newTenant, sentTo, useTemplate } from "./harness";
import { formBody, stripeSender } from "./provider-delivery";

const ACCOUNT = "AC0123456789abcdef0123456789abcdef";

/** An invoice as Stripe's invoice.payment_failed carries it. */
const invoice = (phone: string | null) => ({
  id: "in_1QX1abcdef",
  object: "invoice",
  number: "ACME-0042",
  customer: "cus_QX1abcdef",
  customer_email: "ada@example.com",
  customer_phone: phone,
  amount_due: 4900,
  currency: "usd",
  attempt_count: 2,
  hosted_invoice_url: "https://invoice.stripe.com/i/acct_1/test_abc",
  status: "open",
});

async function deployed() {
  const tenant = await newTenant("dunning");
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-billing-0123456789", base_url: tenant.base_url });
  const twilio = await connect(tenant.key, "twilio", {
    account_sid: ACCOUNT,
    auth_token: "twilio-auth-token-0123456789",
    default_from: "+14155550100",
    base_url: tenant.base_url,
  });
  const data = await useTemplate(tenant.key, "failed-payment-sms-and-slack", {
    deploy: true,
    connections: { slack, twilio },
    variables: { channel: "#dunning", company: "Tea Club" },
  });
  return { ...tenant, send: await stripeSender(tenant.key, data.agent.agent_id) };
}

describe("failed-payment-sms-and-slack", () => {
  it("tells the chosen channel and texts the payment link to a customer with a phone", async () => {
    const { key, scenario, send } = await deployed();
    expect((await settled(key, await send("invoice.payment_failed", invoice("+14155550123")))).status).toBe("succeeded");
    expect((await settled(key, await send("invoice.payment_failed", invoice(null)))).status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /chat.postMessage", `POST /2010-04-01/Accounts/${ACCOUNT}/Messages.json`, "POST /chat.postMessage"]);
    const alert = { channel: "#dunning", text: "Payment failed: invoice ACME-0042 for ada@example.com, 49.00 USD (attempt 2)" };
    expect(sent[0].body).toEqual(alert);
    expect(formBody(sent[1])).toEqual({
      To: "+14155550123",
      From: "+14155550100",
      Body: "Tea Club: your payment of 49.00 USD did not go through. Update your card here: https://invoice.stripe.com/i/acct_1/test_abc",
    });
    expect(sent[2].body).toEqual(alert);
    expectNoPlaceholders(sent);
  });

  it("fails with Twilio's 21608 for a number a trial account has not verified, after telling the team", async () => {
    const { key, scenario, send } = await deployed();
    const run = await settled(key, await send("invoice.payment_failed", invoice("+15551234567")));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "sms" });
    expect(run.error_message).toContain("Trial accounts may only send messages to verified numbers. (error 21608)");
    expect(calls(await sentTo(scenario))).toEqual(["POST /chat.postMessage", `POST /2010-04-01/Accounts/${ACCOUNT}/Messages.json`]);
  });
});
