import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { settled } from "../helpers/runs";
import { signShopify } from "../helpers/provider-signatures";

// A template whose story starts with a provider's event, run end to end: used and deployed in one
// call, the provider's signing secret set, and a delivery signed the way Shopify signs it.

const SHOPIFY_SECRET = "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";

/** An order as Shopify's orders/create webhook sends it (the fields the template reads, and more). */
const order = (total: string, number: number) => ({
  id: 5_480_000_000 + number,
  name: `#${number}`,
  email: "jon@example.com",
  total_price: total,
  currency: "USD",
  line_items: [{ title: "IPod Nano - 8GB", quantity: 1, price: total }],
});

describe("webhook templates", () => {
  it("high-value-order-alert: a Shopify order over the threshold is announced in Slack, one under it is not", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = `template-shopify-${crypto.randomUUID()}`;
    const slack = await json(
      await call("/v1/connections", {
        token: key,
        json: { platform: "slack", name: "Sales Slack", config: { bot_token: "xoxb-1234-5678-template", base_url: `${env.TEST_FAKE_URL}/s/${scenario}` } },
      }),
    );
    const used = await call("/v1/templates/high-value-order-alert/use", {
      token: key,
      json: { deploy: true, connections: { slack: slack.connection_id }, variables: { threshold: 500, channel: "#big-orders" } },
    });
    expect(used.status).toBe(201);
    const { data } = await json(used);
    expect(data.agent.trigger).toMatchObject({ type: "webhook", verify: "shopify", event_types: ["orders/create"] });
    const agentId = data.agent.agent_id;
    expect((await call(`/v1/agents/${agentId}/webhook-secret`, { method: "PUT", token: key, json: { secret: SHOPIFY_SECRET } })).status).toBe(204);

    const deliver = async (body: unknown, topic = "orders/create") => {
      const signed = await signShopify({ secret: SHOPIFY_SECRET, body: JSON.stringify(body), topic, webhookId: crypto.randomUUID() });
      return call(`/v1/hooks/agents/${agentId}`, { body: signed.body, headers: { "Content-Type": "application/json", ...signed.headers } });
    };
    const big = await deliver(order("750.00", 1001));
    expect(big.status).toBe(202);
    expect((await settled(key, (await json(big)).execution_id)).status).toBe("succeeded");
    const small = await deliver(order("20.00", 1002));
    expect((await settled(key, (await json(small)).execution_id)).status).toBe("succeeded");
    // Another topic is not this template's story.
    expect(await json(await deliver(order("900.00", 1003), "orders/cancelled"))).toEqual({ ignored: true });

    const sent = (await (await fetch(`${env.TEST_FAKE_URL}/__requests/${scenario}`)).json<any[]>()).filter((r) => r.path === "/chat.postMessage");
    expect(sent.map((r) => r.body)).toEqual([
      expect.objectContaining({ channel: "#big-orders", text: "High-value order #1001: 750.00 USD from jon@example.com" }),
    ]);
  });

  it("high-value-order-alert: a Slack channel the bot is not in fails the run with not_in_channel", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = `template-shopify-${crypto.randomUUID()}`;
    const slack = await json(
      await call("/v1/connections", {
        token: key,
        json: { platform: "slack", name: "Sales Slack", config: { bot_token: "xoxb-1234-5678-template", base_url: `${env.TEST_FAKE_URL}/s/${scenario}` } },
      }),
    );
    const used = await json(
      await call("/v1/templates/high-value-order-alert/use", {
        token: key,
        json: { deploy: true, connections: { slack: slack.connection_id }, variables: { channel: "#random" } },
      }),
    );
    const agentId = used.data.agent.agent_id;
    expect((await call(`/v1/agents/${agentId}/webhook-secret`, { method: "PUT", token: key, json: { secret: SHOPIFY_SECRET } })).status).toBe(204);
    const signed = await signShopify({
      secret: SHOPIFY_SECRET,
      body: JSON.stringify(order("900.00", 1004)),
      topic: "orders/create",
      webhookId: crypto.randomUUID(),
    });
    const delivered = await call(`/v1/hooks/agents/${agentId}`, { body: signed.body, headers: { "Content-Type": "application/json", ...signed.headers } });
    expect(delivered.status).toBe(202);
    const run = await settled(key, (await json(delivered)).execution_id);
    expect(run.status).toBe("failed");
    expect(run.error_message).toContain("not_in_channel");
    const sent = (await (await fetch(`${env.TEST_FAKE_URL}/__requests/${scenario}`)).json<any[]>()).map((r) => `${r.method} ${r.path}`);
    expect(sent).toEqual(["POST /chat.postMessage"]);
  });
});
