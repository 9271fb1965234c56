// Three webhook templates of this group, deployed and fed the deliveries their stories start
// with: nps-detractor-alert logs every answer in the user's table and alerts their channel about
// detractors only; trial-expiry-nudge emails the offer and tells the chosen channel about VIP
// trials; review-request-after-purchase asks for a review a week after Shopify's orders/fulfilled,
// linking the user's review page. Each platform's refusal fails the run with its reason.
import { describe, expect, it } from "vitest";
import { call, json } from "../../helpers/api";
import { signShopify } from "../../helpers/provider-signatures";
import { settled } from "../../helpers/runs";
import { deliver } from "./hub-delivery";
import { calls, connect, expectNoPlaceholders, newTenant, script, sentTo, stepReaches, timePasses, useTemplate } from "./harness";

describe("nps-detractor-alert", () => {
  const BASE = "appFEEDBACK00000A";
  async function deployed() {
    const tenant = await newTenant("nps");
    const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-test-0123456789", base_url: tenant.base_url });
    const airtable = await connect(tenant.key, "airtable", { access_token: "patTEST.0123456789abcdef", default_base_id: BASE, base_url: tenant.base_url });
    const data = await useTemplate(tenant.key, "nps-detractor-alert", {
      deploy: true,
      connections: { slack, airtable },
      variables: { cs_channel: "#cx-alerts", feedback_table: "NPS" },
    });
    return { ...tenant, agent: data.agent };
  }

  it("logs every answer and alerts the chosen channel about a detractor only", async () => {
    const { key, scenario, agent } = await deployed();
    const detractor = await settled(key, await deliver(agent, { email: "ada@example.com", score: 3, comment: "Too slow" }));
    expect(detractor.status).toBe("succeeded");
    const promoter = await settled(key, await deliver(agent, { email: "grace@example.com", score: 9 }));
    expect(promoter.status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual([`POST /${BASE}/NPS`, "POST /chat.postMessage", `POST /${BASE}/NPS`]);
    expect(sent[0]!.body).toEqual({ fields: { Email: "ada@example.com", Score: 3, Comment: "Too slow" }, typecast: false });
    expect(sent[1]!.body).toEqual({ channel: "#cx-alerts", text: "Detractor (3): ada@example.com — Too slow" });
    expect(sent[2]!.body).toEqual({ fields: { Email: "grace@example.com", Score: 9, Comment: "" }, typecast: false });
    expectNoPlaceholders(sent);
  });

  it("fails with Airtable's 422 for a score that is not a number, and alerts nobody", async () => {
    const { key, scenario, agent } = await deployed();
    const run = await settled(key, await deliver(agent, { email: "ada@example.com", score: "ten" }));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "log" });
    expect(run.error_message).toContain('INVALID_VALUE_FOR_COLUMN: Field "Score" cannot accept the provided value');
    expect(calls(await sentTo(scenario))).toEqual([`POST /${BASE}/NPS`]);
  });
});

describe("trial-expiry-nudge", () => {
  async function deployed() {
    const tenant = await newTenant("trial");
    const resend = await connect(tenant.key, "resend", { api_key: "re_test_0123456789abcdef", base_url: tenant.base_url });
    const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-test-0123456789", base_url: tenant.base_url });
    const data = await useTemplate(tenant.key, "trial-expiry-nudge", {
      deploy: true,
      connections: { resend, slack },
      variables: { sender: "Ada at Acme <ada@acme.example>", vip_channel: "#vip-trials" },
    });
    return { ...tenant, agent: data.agent };
  }

  it("emails every trial user, and tells the chosen channel about an enterprise one", async () => {
    const { key, scenario, agent } = await deployed();
    expect((await settled(key, await deliver(agent, { email: "cto@bigco.example", plan_interest: "enterprise" }))).status).toBe("succeeded");
    expect((await settled(key, await deliver(agent, { email: "solo@example.com", plan_interest: "starter" }))).status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /emails", "POST /chat.postMessage", "POST /emails"]);
    const offer = (to: string) => ({
      from: "Ada at Acme <ada@acme.example>",
      to,
      subject: "Your trial ends in 5 days",
      html: "<p>Upgrade now and keep everything you built.</p>",
    });
    expect(sent[0]!.body).toEqual(offer("cto@bigco.example"));
    expect(sent[1]!.body).toEqual({ channel: "#vip-trials", text: "VIP trial ending: cto@bigco.example (enterprise)" });
    expect(sent[2]!.body).toEqual(offer("solo@example.com"));
    expectNoPlaceholders(sent);
  });

  it("fails at once with Resend's reason when the sender's domain is not verified, and tells no one", async () => {
    const { key, scenario, agent } = await deployed();
    const message = "The acme.example domain is not verified. Please, add and verify your domain on https://resend.com/domains";
    await script(scenario, [{ status: 403, body: { statusCode: 403, name: "validation_error", message } }]);
    const run = await settled(key, await deliver(agent, { email: "cto@bigco.example", plan_interest: "business" }));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "offer" });
    expect(run.error_message).toContain("domain is not verified");
    expect(run.steps[0].attempts).toBe(1);
    expect(calls(await sentTo(scenario))).toEqual(["POST /emails"]);
  });
});

describe("review-request-after-purchase", () => {
  const SHOPIFY_SECRET = "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";
  /** An order as Shopify's orders/fulfilled webhook sends it (the fields the template reads, and more). */
  const order = (number: number, email: string) => ({
    id: 5_480_000_000 + number,
    name: `#${number}`,
    email,
    fulfillment_status: "fulfilled",
    total_price: "42.00",
    currency: "EUR",
    line_items: [{ title: "Sencha 100 g", quantity: 2, price: "21.00" }],
  });

  async function deployed() {
    const tenant = await newTenant("review");
    const resend = await connect(tenant.key, "resend", { api_key: "re_test_0123456789abcdef", base_url: tenant.base_url });
    const data = await useTemplate(tenant.key, "review-request-after-purchase", {
      deploy: true,
      connections: { resend },
      variables: { sender: "Tea Shop <hello@tea.example>", review_url: "https://tea.example/reviews/new" },
    });
    const agentId = data.agent.agent_id as string;
    expect((await call(`/v1/agents/${agentId}/webhook-secret`, { method: "PUT", token: tenant.key, json: { secret: SHOPIFY_SECRET } })).status).toBe(204);
    const fulfilled = async (body: unknown) => {
      const signed = await signShopify({ secret: SHOPIFY_SECRET, body: JSON.stringify(body), topic: "orders/fulfilled", webhookId: crypto.randomUUID() });
      const response = await call(`/v1/hooks/agents/${agentId}`, { body: signed.body, headers: { "Content-Type": "application/json", ...signed.headers } });
      expect(response.status).toBe(202);
      return (await json(response)).execution_id as string;
    };
    return { ...tenant, fulfilled };
  }

  it("a week after the order is fulfilled, asks the customer for a review on the chosen page", async () => {
    const { key, scenario, fulfilled } = await deployed();
    const id = await fulfilled(order(1001, "jon@example.com"));
    await stepReaches(id, "wait", "waiting");
    const wait = (await json(await call(`/v1/executions/${id}`, { token: key }))).steps.find((s: any) => s.step_id === "wait");
    expect((Date.parse(wait.resume_at) - Date.parse(wait.started_at)) / 86_400_000).toBeCloseTo(7, 3);
    expect(await sentTo(scenario)).toEqual([]);

    await timePasses(id, "wait");
    expect((await settled(key, id)).status).toBe("succeeded");
    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /emails"]);
    expect(sent[0]!.body).toEqual({
      from: "Tea Shop <hello@tea.example>",
      to: "jon@example.com",
      subject: "How was your order #1001?",
      html: '<p><a href="https://tea.example/reviews/new?order=5480001001">Leave a review</a></p>',
    });
    expectNoPlaceholders(sent);
  });

  it("fails with Resend's validation message for an address it refuses", async () => {
    const { key, scenario, fulfilled } = await deployed();
    const id = await fulfilled(order(1002, "jon@example.com"));
    await stepReaches(id, "wait", "waiting");
    await script(scenario, [
      {
        status: 422,
        body: { statusCode: 422, name: "validation_error", message: "Invalid `to` field. The email address needs to follow the `email@example.com` format." },
      },
    ]);
    await timePasses(id, "wait");
    const run = await settled(key, id);
    expect(run).toMatchObject({ status: "failed", failed_step_id: "ask" });
    expect(run.error_message).toContain("Invalid `to` field");
    expect(calls(await sentTo(scenario))).toEqual(["POST /emails"]);
  });
});
