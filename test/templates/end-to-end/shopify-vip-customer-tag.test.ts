// shopify-vip-customer-tag, deployed and fed Shopify's orders/create: an order at or above the
// chosen threshold tags its customer with the chosen tag and tells the chosen channel; a guest
// checkout is announced without tagging, and a smaller order does nothing. Shopify's userErrors
// (a customer deleted meanwhile) fail the run with Shopify's words, before any alert.
import { describe, expect, it } from "vitest";
import { call, json } from "../../helpers/api";
import { signShopify } from "../../helpers/provider-signatures";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, newTenant, script, sentTo, useTemplate } from "./harness";

const SHOPIFY_SECRET = "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";

/** An order as Shopify's orders/create webhook sends it; `customer: null` is a guest checkout. */
const order = (number: number, total: string, customerId: number | null) => ({
  id: 5_480_000_000 + number,
  admin_graphql_api_id: `gid://shopify/Order/${5_480_000_000 + number}`,
  name: `#${number}`,
  email: customerId ? "ada@example.com" : null,
  total_price: total,
  currency: "EUR",
  customer: customerId ? { id: customerId, admin_graphql_api_id: `gid://shopify/Customer/${customerId}`, email: "ada@example.com", tags: "" } : null,
});

async function deployed() {
  const tenant = await newTenant("vip");
  const shopify = await connect(tenant.key, "shopify", { shop: "tea-shop", access_token: "shpat_0123456789abcdef0123456789abcdef", base_url: tenant.base_url });
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-vip-orders-0123456789", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "shopify-vip-customer-tag", {
    deploy: true,
    connections: { shopify, slack },
    variables: { threshold: 200, vip_tag: "Tea VIP", channel: "#big-orders" },
  });
  const agentId = data.agent.agent_id as string;
  expect((await call(`/v1/agents/${agentId}/webhook-secret`, { method: "PUT", token: tenant.key, json: { secret: SHOPIFY_SECRET } })).status).toBe(204);
  const created = async (body: unknown) => {
    const signed = await signShopify({ secret: SHOPIFY_SECRET, body: JSON.stringify(body), topic: "orders/create", webhookId: crypto.randomUUID() });
    const response = await call(`/v1/hooks/agents/${agentId}`, { body: signed.body, headers: { "Content-Type": "application/json", ...signed.headers } });
    expect(response.status).toBe(202);
    return (await json(response)).execution_id as string;
  };
  return { ...tenant, created };
}

describe("shopify-vip-customer-tag", () => {
  it("tags the customer of an order at or above the threshold and tells the channel; a guest is announced untagged, a small order ignored", async () => {
    const { key, scenario, created } = await deployed();
    expect((await settled(key, await created(order(1001, "250.00", 7_400_000_001)))).status).toBe("succeeded");
    expect((await settled(key, await created(order(1002, "120.00", 7_400_000_002)))).status).toBe("succeeded");
    expect((await settled(key, await created(order(1003, "200.00", null)))).status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /graphql.json", "POST /chat.postMessage", "POST /chat.postMessage"]);
    expect(sent[0].body.query).toContain("tagsAdd(");
    expect(sent[0].body.variables).toEqual({ id: "gid://shopify/Customer/7400000001", tags: ["Tea VIP"] });
    expect(sent[1].body).toEqual({ channel: "#big-orders", text: "VIP order #1001: 250.00 EUR from ada@example.com" });
    expect(sent[2].body).toEqual({ channel: "#big-orders", text: "VIP order #1003: 200.00 EUR from a guest" });
    expectNoPlaceholders(sent);
  });

  it("fails with Shopify's userErrors when the customer cannot be tagged, before any alert", async () => {
    const { key, scenario, created } = await deployed();
    await script(scenario, [{ body: { data: { tagsAdd: { node: null, userErrors: [{ field: ["id"], message: "Customer does not exist" }] } } } }]);
    const run = await settled(key, await created(order(1004, "900.00", 7_400_000_004)));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "tag" });
    expect(run.error_message).toContain("Customer does not exist");
    expect(calls(await sentTo(scenario))).toEqual(["POST /graphql.json"]);
  });
});
