// Stripe's tools against the fake of its API: form-encoded bodies with bracketed nesting, the
// secret key as a Bearer token, lists newest first paged by starting_after, Stripe's error body.
import { describe, expect, it } from "vitest";
import { connected, expectCall, failed, formOf, ok, onlyRequestOf, requestsOf, respondWith } from "./platform-test-kit";

const setup = () => connected("stripe", (hub) => ({ secret_key: hub.secret("sk_test_") }));

describe("Stripe", () => {
  it("creates a customer with a form body (metadata bracketed) and reads it back and in the list", async () => {
    const { hub, scenario, settings } = await setup();
    const created = await ok(hub, "stripe_create_customer", { email: "ada@example.com", name: "Ada Lovelace", metadata: { plan: "pro", source: "webinar" } });
    expect(created).toEqual({
      id: expect.stringMatching(/^cus_/),
      email: "ada@example.com",
      name: "Ada Lovelace",
      phone: null,
      created: expect.any(Number),
      metadata: { plan: "pro", source: "webinar" },
    });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/v1/customers");
    expect(request.headers.authorization).toBe(`Bearer ${settings.secret_key}`);
    expect(formOf(request)).toEqual({ email: "ada@example.com", name: "Ada Lovelace", "metadata[plan]": "pro", "metadata[source]": "webinar" });

    expect(await ok(hub, "stripe_get_customer", { customer_id: created.id })).toEqual(created);
    expectCall((await requestsOf(scenario))[1]!, "GET", `/v1/customers/${created.id}`);

    const listed = await ok(hub, "stripe_list_customers", { email: "ada@example.com" });
    expect(listed).toEqual({ customers: [created], next_cursor: null });
    expectCall((await requestsOf(scenario))[2]!, "GET", "/v1/customers", { limit: "10", email: "ada@example.com" });
  });

  it("an unknown customer is Stripe's 404 resource_missing, not worth retrying", async () => {
    const { hub } = await setup();
    const out = await failed(hub, "stripe_get_customer", { customer_id: "cus_missing" });
    expect(out).toMatchObject({ error_status: 404, retryable: false });
    expect(out.error_message).toBe("Stripe answered 404: No such customer: 'cus_missing' (parameter: id)");
  });

  it("lists charges newest first, paging with the last id as starting_after", async () => {
    const { hub, scenario } = await setup();
    const first = await ok(hub, "stripe_list_charges", { limit: 2 });
    expect(first.charges.map((c: any) => c.id)).toEqual(["ch_3", "ch_2"]);
    expect(first.charges[0]).toEqual({
      id: "ch_3",
      amount: 3000,
      currency: "usd",
      status: "succeeded",
      paid: true,
      refunded: true,
      customer: "cus_fixed1",
      billing_email: "buyer3@example.com",
      description: "Order 3",
      payment_intent: "pi_3",
      created: 1763800003,
    });
    expect(first.next_cursor).toBe("ch_2");
    const second = await ok(hub, "stripe_list_charges", { limit: 2, cursor: first.next_cursor });
    expect(second).toMatchObject({ charges: [{ id: "ch_1" }], next_cursor: null });
    const requests = await requestsOf(scenario);
    expectCall(requests[0]!, "GET", "/v1/charges", { limit: "2" });
    expectCall(requests[1]!, "GET", "/v1/charges", { limit: "2", starting_after: "ch_2" });
  });

  it("refunds part of a charge, and a charge refunded already is Stripe's 400 charge_already_refunded", async () => {
    const { hub, scenario } = await setup();
    const refund = await ok(hub, "stripe_create_refund", { charge: "ch_2", amount: 500, reason: "requested_by_customer" });
    expect(refund).toEqual({ id: "re_1", amount: 500, currency: "usd", status: "succeeded", charge: "ch_2" });
    expect(formOf(await onlyRequestOf(scenario))).toEqual({ charge: "ch_2", amount: "500", reason: "requested_by_customer" });

    const again = await failed(hub, "stripe_create_refund", { charge: "ch_3" });
    expect(again).toMatchObject({ error_status: 400, retryable: false, error_message: "Stripe answered 400: Charge ch_3 has already been refunded." });
    // Neither or both of charge and payment_intent: refused before Stripe is called.
    await hub.problem(
      "/v1/tools/execute",
      { json: { name: "stripe_create_refund", arguments: { charge: "ch_1", payment_intent: "pi_1" } } },
      422,
      "validation_failed",
    );
    expect(await requestsOf(scenario)).toHaveLength(2);
  });

  it("creates a Checkout session with its line items as line_items[i][…] and returns the payment URL", async () => {
    const { hub, scenario } = await setup();
    const session = await ok(hub, "stripe_create_checkout_session", {
      line_items: [
        { price: "price_basic", quantity: 1 },
        { price: "price_addon", quantity: 3 },
      ],
      success_url: "https://acme.example/thanks",
      customer_email: "buyer@example.com",
    });
    expect(session).toEqual({ id: "cs_test_a1", url: "https://checkout.stripe.com/c/pay/cs_test_a1", status: "open", expires_at: 1763886400 });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/v1/checkout/sessions");
    expect(formOf(request)).toEqual({
      mode: "payment",
      "line_items[0][price]": "price_basic",
      "line_items[0][quantity]": "1",
      "line_items[1][price]": "price_addon",
      "line_items[1][quantity]": "3",
      success_url: "https://acme.example/thanks",
      customer_email: "buyer@example.com",
    });
  });

  it("a rate-limited call (429 rate_limit) is retryable after Stripe's Retry-After; a refused key marks the connection", async () => {
    const { hub, scenario, connection } = await setup();
    await respondWith(
      scenario,
      429,
      { error: { type: "invalid_request_error", code: "rate_limit", message: "Too many requests hit the API too quickly." } },
      { "Retry-After": "1" },
    );
    const limited = await failed(hub, "stripe_list_customers", {});
    expect(limited).toMatchObject({ error_status: 429, retryable: true, retry_after_seconds: 1 });
    expect(limited.error_message).toBe("Stripe answered 429: Too many requests hit the API too quickly.");

    await respondWith(scenario, 401, { error: { type: "invalid_request_error", message: "Invalid API Key provided: sk_test_****1234" } });
    const refused = await failed(hub, "stripe_list_charges", {});
    expect(refused).toMatchObject({ error_status: 401, retryable: false });
    expect(await hub.connection(connection.connection_id)).toMatchObject({ status: "error" });
  });
});
