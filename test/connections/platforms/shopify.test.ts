// Shopify's tools against the fake of its GraphQL Admin API: one POST /graphql.json per call with
// the query and its variables, the token in X-Shopify-Access-Token, connections paged by
// endCursor, mutations refused in userErrors, THROTTLED (status 200) worth retrying.
import { describe, expect, it } from "vitest";
import { connected, expectCall, failed, jsonOf, ok, onlyRequestOf, requestsOf, respondWith } from "./platform-test-kit";

const setup = (token?: string) => connected("shopify", (hub) => ({ shop: "acme", access_token: token ?? hub.secret("shpat_") }));

describe("Shopify", () => {
  it("lists orders newest first through GraphQL with the token header, paging by endCursor", async () => {
    const { hub, scenario, settings } = await setup();
    const first = await ok(hub, "shopify_list_orders", { limit: 2 });
    expect(first.orders.map((o: any) => o.name)).toEqual(["#1003", "#1002"]);
    expect(first.orders[0]).toEqual({
      id: "gid://shopify/Order/1003",
      name: "#1003",
      created_at: "2026-11-23T09:00:00Z",
      financial_status: "PAID",
      fulfillment_status: "UNFULFILLED",
      email: "buyer1003@example.com",
      total: "13.00",
      currency: "EUR",
      customer_id: "gid://shopify/Customer/6003",
    });
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await ok(hub, "shopify_list_orders", { limit: 2, cursor: first.next_cursor });
    expect(second).toMatchObject({ orders: [{ name: "#1001", financial_status: "REFUNDED" }], next_cursor: null });

    const [request, next] = await requestsOf(scenario);
    expectCall(request!, "POST", "/graphql.json");
    expect(request!.headers["x-shopify-access-token"]).toBe(settings.access_token);
    const body = jsonOf(request!);
    expect(body.query).toContain("orders(first: $first, after: $after, query: $query, sortKey: CREATED_AT, reverse: true)");
    expect(body.variables).toEqual({ first: 2, after: null, query: null });
    expect(jsonOf(next!).variables).toEqual({ first: 2, after: first.next_cursor, query: null });
  });

  it("creates a customer, and a second one with that email is Shopify's userError, not retried", async () => {
    const { hub, scenario } = await setup();
    const created = await ok(hub, "shopify_create_customer", { email: "ada@example.com", first_name: "Ada", tags: ["newsletter"] });
    expect(created).toEqual({ id: "gid://shopify/Customer/9000", email: "ada@example.com", first_name: "Ada", last_name: null, tags: ["newsletter"] });
    const body = jsonOf(await onlyRequestOf(scenario));
    expect(body.query).toContain("customerCreate(input: $input)");
    expect(body.variables).toEqual({ input: { email: "ada@example.com", firstName: "Ada", tags: ["newsletter"] } });

    const again = await failed(hub, "shopify_create_customer", { email: "ada@example.com" });
    expect(again).toMatchObject({ error_status: 422, retryable: false, error_message: "Shopify refused it: email: Email has already been taken" });
  });

  it("lists products and tags an order", async () => {
    const { hub, scenario } = await setup();
    expect(await ok(hub, "shopify_list_products", { query: "status:active" })).toEqual({
      products: [{ id: "gid://shopify/Product/7", title: "Mug", handle: "mug", status: "ACTIVE", total_inventory: 12, created_at: "2026-11-01T09:00:00Z" }],
      next_cursor: null,
    });
    expect(await ok(hub, "shopify_add_tags", { id: "gid://shopify/Order/1003", tags: ["handled"] })).toEqual({
      id: "gid://shopify/Order/1003",
      tags_added: ["handled"],
    });
    const requests = await requestsOf(scenario);
    expect(jsonOf(requests[0]!).variables).toEqual({ first: 20, after: null, query: "status:active" });
    expect(jsonOf(requests[1]!)).toMatchObject({ variables: { id: "gid://shopify/Order/1003", tags: ["handled"] } });
  });

  it("THROTTLED (status 200) is retryable; a wrong token is Shopify's 401 and marks the connection", async () => {
    const { hub, scenario } = await setup();
    await respondWith(scenario, 200, {
      errors: [{ message: "Throttled", extensions: { code: "THROTTLED", documentation: "https://shopify.dev/api/usage/rate-limits" } }],
      extensions: { cost: { requestedQueryCost: 52, throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 10, restoreRate: 100 } } },
    });
    expect(await failed(hub, "shopify_list_orders", {})).toMatchObject({ retryable: true, error_message: "Shopify answered THROTTLED: Throttled" });

    const wrong = await setup("not-a-token");
    const refused = await failed(wrong.hub, "shopify_list_products", {});
    expect(refused).toMatchObject({
      error_status: 401,
      error_message: "Shopify answered 401: [API] Invalid API key or access token (unrecognized login or wrong password)",
    });
    expect(await wrong.hub.connection(wrong.connection.connection_id)).toMatchObject({ status: "error" });
  });
});
