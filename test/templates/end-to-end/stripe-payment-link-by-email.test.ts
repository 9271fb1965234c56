// stripe-payment-link-by-email, deployed and fed a lead: a Stripe Checkout link for the chosen
// price, prefilled with the lead's email and landing on the chosen page, is emailed through
// Postmark from the chosen sender. Stripe's refusal of an unknown price fails the run unsent.
import { describe, expect, it } from "vitest";
import { call, json } from "../../helpers/api";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, newTenant, script, sentTo, useTemplate } from "./harness";
import { deliver } from "./hub-delivery";
import { formBody } from "./provider-delivery";

async function deployed() {
  const tenant = await newTenant("paylink");
  const stripe = await connect(tenant.key, "stripe", { secret_key: "sk_test_paylink0123456789", base_url: tenant.base_url });
  const postmark = await connect(tenant.key, "postmark", { server_token: "pm-paylink-token-0123456789", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "stripe-payment-link-by-email", {
    deploy: true,
    connections: { stripe, postmark },
    variables: {
      price_id: "price_1QTeaClubAnnual",
      success_url: "https://tea.example/welcome",
      sender: "Tea Club <club@tea.example>",
      subject: "Your Tea Club membership link",
    },
  });
  return { ...tenant, agent: data.agent };
}

describe("stripe-payment-link-by-email", () => {
  it("creates a Checkout link for the chosen price and emails it to the lead from the chosen sender", async () => {
    const { key, scenario, agent } = await deployed();
    expect((await settled(key, await deliver(agent, { email: "ada@example.com", name: "Ada" }))).status).toBe("succeeded");
    expect((await settled(key, await deliver(agent, { email: "grace@example.com" }))).status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /v1/checkout/sessions", "POST /email", "POST /v1/checkout/sessions", "POST /email"]);
    expect(formBody(sent[0])).toEqual({
      mode: "payment",
      "line_items[0][price]": "price_1QTeaClubAnnual",
      "line_items[0][quantity]": "1",
      success_url: "https://tea.example/welcome",
      customer_email: "ada@example.com",
    });
    const email = (to: string, name: string) => ({
      From: "Tea Club <club@tea.example>",
      To: to,
      Subject: "Your Tea Club membership link",
      HtmlBody: `<p>Hi ${name},</p><p><a href="https://checkout.stripe.com/c/pay/cs_test_a1">Complete your order</a>.</p>`,
      Tag: "payment-link",
      MessageStream: "outbound",
    });
    expect(sent[1].body).toEqual(email("ada@example.com", "Ada"));
    expect(formBody(sent[2]).customer_email).toBe("grace@example.com");
    expect(sent[3].body).toEqual(email("grace@example.com", "there"));
    expectNoPlaceholders(sent);
  });

  it("cannot be used without a price: 422 naming price_id, and nothing is created", async () => {
    const tenant = await newTenant("paylink");
    const stripe = await connect(tenant.key, "stripe", { secret_key: "sk_test_paylink0123456789", base_url: tenant.base_url });
    const postmark = await connect(tenant.key, "postmark", { server_token: "pm-paylink-token-0123456789", base_url: tenant.base_url });
    const response = await call("/v1/templates/stripe-payment-link-by-email/use", {
      token: tenant.key,
      json: { deploy: true, connections: { stripe, postmark } },
    });
    expect(response.status).toBe(422);
    expect((await json(response)).errors).toEqual([{ location: "body", field: "variables.price_id", message: expect.stringContaining("Stripe price") }]);
    expect((await json(await call("/v1/workflows", { token: tenant.key }))).data).toEqual([]);
  });

  it("fails with Stripe's reason for a price that does not exist, and emails nobody", async () => {
    const { key, scenario, agent } = await deployed();
    await script(scenario, [
      {
        status: 400,
        body: {
          error: {
            type: "invalid_request_error",
            code: "resource_missing",
            message: "No such price: 'price_1QTeaClubAnnual'",
            param: "line_items[0][price]",
          },
        },
      },
    ]);
    const run = await settled(key, await deliver(agent, { email: "ada@example.com" }));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "checkout" });
    expect(run.error_message).toContain("No such price: 'price_1QTeaClubAnnual' (parameter: line_items[0][price])");
    expect(calls(await sentTo(scenario))).toEqual(["POST /v1/checkout/sessions"]);
  });
});
