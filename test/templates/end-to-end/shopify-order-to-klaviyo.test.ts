// shopify-order-to-klaviyo, deployed and fed Shopify's orders/create: an order with an email names
// its buyer's Klaviyo profile and records the chosen metric for them, worth the order's total, with
// the order's id as the event's unique id and its items as properties; an order without both names
// records the event alone, and a guest checkout without an email sends nothing. Klaviyo's refusal
// of the event fails the run with Klaviyo's words.
import { describe, expect, it } from "vitest";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, expectSucceeded, newTenant, script, sentTo, useTemplate } from "./harness";
import { shopifySender } from "./provider-delivery";

/** An order as Shopify's orders/create webhook sends it. */
const order = (number: number, fields: Record<string, unknown>) => ({
  id: 5_480_000_000 + number,
  admin_graphql_api_id: `gid://shopify/Order/${5_480_000_000 + number}`,
  name: `#${number}`,
  created_at: "2026-11-22T10:15:00+01:00",
  currency: "EUR",
  total_price: "54.50",
  discount_codes: [],
  line_items: [{ id: 1, product_id: 8_100_000_001, sku: "TEA-EG-100", title: "Earl Grey", quantity: 2, price: "12.25" }],
  customer: null,
  billing_address: null,
  ...fields,
});

async function deployed() {
  const tenant = await newTenant("klaviyo");
  const klaviyo = await connect(tenant.key, "klaviyo", { private_key: "pk_0123456789abcdef0123456789abcdef01", base_url: `${tenant.base_url}/klaviyo/api` });
  const data = await useTemplate(tenant.key, "shopify-order-to-klaviyo", {
    deploy: true,
    connections: { klaviyo },
    variables: { metric_name: "Hub Placed Order" },
  });
  return { ...tenant, created: await shopifySender(tenant.key, data.agent.agent_id, "orders/create") };
}

/** The event document Klaviyo was sent, its profile named by `email`. */
const eventOf = (email: string, attributes: Record<string, unknown>) => ({
  data: {
    type: "event",
    attributes: {
      ...attributes,
      metric: { data: { type: "metric", attributes: { name: "Hub Placed Order" } } },
      profile: { data: { type: "profile", attributes: { email } } },
    },
  },
});

describe("shopify-order-to-klaviyo", () => {
  it("names the buyer's profile and records the order as the chosen metric; without both names the event alone; a guest without an email nothing", async () => {
    const { key, scenario, created } = await deployed();
    const named = order(1001, {
      email: "ada@example.com",
      total_price: "54.50",
      discount_codes: [{ code: "WELCOME10", amount: "5.50", type: "percentage" }],
      line_items: [
        { id: 1, product_id: 8_100_000_001, sku: "TEA-EG-100", title: "Earl Grey", quantity: 2, price: "12.25" },
        { id: 2, product_id: null, sku: null, title: "Gift wrap", quantity: 1, price: "35.50" },
      ],
      customer: { id: 7_400_000_001, email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
    });
    expectSucceeded(await settled(key, await created(named)));
    // No customer record and only a last name on the address: the profile's names are left alone.
    expectSucceeded(
      await settled(key, await created(order(1002, { email: "bo@example.com", total_price: "24.50", billing_address: { first_name: null, last_name: "Bo" } }))),
    );
    expectSucceeded(await settled(key, await created(order(1003, { email: null }))));

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /klaviyo/api/profile-import", "POST /klaviyo/api/events", "POST /klaviyo/api/events"]);
    expect(sent[0].headers.authorization).toBe("Klaviyo-API-Key pk_0123456789abcdef0123456789abcdef01");
    expect(sent[0].body).toEqual({ data: { type: "profile", attributes: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" } } });
    expect(sent[1].body).toEqual(
      eventOf("ada@example.com", {
        properties: {
          OrderId: "5480001001",
          OrderName: "#1001",
          ItemNames: ["Earl Grey", "Gift wrap"],
          Items: [
            { ProductID: 8_100_000_001, SKU: "TEA-EG-100", ProductName: "Earl Grey", Quantity: 2, ItemPrice: 12.25 },
            { ProductID: null, SKU: "", ProductName: "Gift wrap", Quantity: 1, ItemPrice: 35.5 },
          ],
          DiscountCodes: ["WELCOME10"],
        },
        time: "2026-11-22T10:15:00+01:00",
        value: 54.5,
        value_currency: "EUR",
        unique_id: "5480001001",
      }),
    );
    expect(sent[2].body).toEqual(
      eventOf("bo@example.com", {
        properties: {
          OrderId: "5480001002",
          OrderName: "#1002",
          ItemNames: ["Earl Grey"],
          Items: [{ ProductID: 8_100_000_001, SKU: "TEA-EG-100", ProductName: "Earl Grey", Quantity: 2, ItemPrice: 12.25 }],
          DiscountCodes: [],
        },
        time: "2026-11-22T10:15:00+01:00",
        value: 24.5,
        value_currency: "EUR",
        unique_id: "5480001002",
      }),
    );
    expectNoPlaceholders(sent);
  });

  it("fails with Klaviyo's words when it refuses the event, after the profile was named", async () => {
    const { key, scenario, created } = await deployed();
    await script(scenario, [
      { status: 201, body: { data: { type: "profile", id: "01JD0000000000000000000001", attributes: { email: "ada@example.com", first_name: "Ada" } } } },
      {
        status: 403,
        body: {
          errors: [
            {
              id: "5c1e0b4a-7d2f-4e8b-9a3c-2f1d0e9b8a7c",
              status: 403,
              code: "permission_denied",
              title: "You do not have permission to perform this action.",
              detail: "You do not have permission to perform this action.",
              source: { pointer: "/data/" },
            },
          ],
        },
      },
    ]);
    const run = await settled(
      key,
      await created(order(1004, { email: "ada@example.com", customer: { id: 7_400_000_001, first_name: "Ada", last_name: "Lovelace" } })),
    );
    expect(run).toMatchObject({ status: "failed", failed_step_id: "event" });
    expect(run.error_message).toContain("You do not have permission to perform this action.");
    expect(run.error_message).toContain("Give the private key the scope this call needs");
    expect(calls(await sentTo(scenario))).toEqual(["POST /klaviyo/api/profile-import", "POST /klaviyo/api/events"]);
  });
});
