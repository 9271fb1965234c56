// stripe-new-customer-welcome-email, deployed and fed Stripe's customer.created: a customer with
// an email gets the welcome from the chosen sender, naming the company and its help page; one
// without an email gets nothing. SendGrid's refusal of a revoked key fails the run with its reason.
import { describe, expect, it } from "vitest";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, newTenant, script, sentTo, useTemplate } from "./harness";
import { stripeSender } from "./provider-delivery";

const customer = (email: string | null, name: string | null) => ({ id: "cus_QX1abcdef", object: "customer", email, name, phone: null, metadata: {} });

async function deployed() {
  const tenant = await newTenant("welcome");
  const sendgrid = await connect(tenant.key, "sendgrid", { api_key: "SG.test-welcome.0123456789abcdef", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "stripe-new-customer-welcome-email", {
    deploy: true,
    connections: { sendgrid },
    variables: { sender: "hi@tea.example", sender_name: "Tea Club", company: "Tea Club", help_url: "https://tea.example/start" },
  });
  return { ...tenant, send: await stripeSender(tenant.key, data.agent.agent_id) };
}

describe("stripe-new-customer-welcome-email", () => {
  it("welcomes a new customer by name from the chosen sender, and skips a customer without an email", async () => {
    const { key, scenario, send } = await deployed();
    expect((await settled(key, await send("customer.created", customer("ada@example.com", "Ada")))).status).toBe("succeeded");
    expect((await settled(key, await send("customer.created", customer(null, "Walk-in")))).status).toBe("succeeded");
    expect((await settled(key, await send("customer.created", customer("anon@example.com", null)))).status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /v3/mail/send", "POST /v3/mail/send"]);
    const welcome = (to: string, name: string) => ({
      personalizations: [{ to: [{ email: to }] }],
      from: { email: "hi@tea.example", name: "Tea Club" },
      subject: "Welcome to Tea Club",
      content: [
        {
          type: "text/html",
          value: `<p>Hi ${name}, thanks for choosing Tea Club.</p><p><a href="https://tea.example/start">Get started here</a>.</p>`,
        },
      ],
      categories: ["welcome"],
    });
    expect(sent[0].body).toEqual(welcome("ada@example.com", "Ada"));
    expect(sent[1].body).toEqual(welcome("anon@example.com", "there"));
    expectNoPlaceholders(sent);
  });

  it("fails with SendGrid's reason when the key is revoked", async () => {
    const { key, scenario, send } = await deployed();
    await script(scenario, [
      { status: 401, body: { errors: [{ field: null, message: "The provided authorization grant is invalid, expired, or revoked", help: null }] } },
    ]);
    const run = await settled(key, await send("customer.created", customer("ada@example.com", "Ada")));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "welcome" });
    expect(run.error_message).toContain("The provided authorization grant is invalid, expired, or revoked");
    expect(calls(await sentTo(scenario))).toEqual(["POST /v3/mail/send"]);
  });
});
