import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { requestTool } from "./request-tool";
import { type PlatformFailure, baseUrlField, definePlatform, secret } from "./types";

type StripeConfig = { secret_key: string; base_url?: string };

const Id = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[A-Za-z0-9]{1,250}$`), `A Stripe id starting ${prefix}_`);
/** Stripe metadata: at most 50 keys, keys up to 40 characters, values up to 500. */
const Metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, "At most 50 metadata keys.")
  .optional();
const Limit = z.number().int().min(1).max(100).default(10);
const Cursor = z.string().max(255).optional().describe("The previous page's next_cursor (Stripe's starting_after).");

/** A Stripe list page ({object: "list", data, has_more}) as items and the cursor to the next page: the last item's id. */
function page(key: string, pick: (item: any) => unknown) {
  return (answer: { data: any[]; has_more: boolean }) => ({
    [key]: answer.data.map(pick),
    next_cursor: answer.has_more && answer.data.length ? answer.data[answer.data.length - 1].id : null,
  });
}

const customer = (c: any) => ({
  id: c.id,
  email: c.email ?? null,
  name: c.name ?? null,
  phone: c.phone ?? null,
  created: c.created,
  metadata: c.metadata ?? {},
});
const charge = (c: any) => ({
  id: c.id,
  amount: c.amount,
  currency: c.currency,
  status: c.status,
  paid: c.paid,
  refunded: c.refunded,
  customer: c.customer ?? null,
  billing_email: c.billing_details?.email ?? null,
  description: c.description ?? null,
  payment_intent: c.payment_intent ?? null,
  created: c.created,
});

/**
 * Stripe's error reader: `{error: {type, code?, decline_code?, message, param?}}`
 * (docs.stripe.com/api/errors). A refused key is a 401; a declined card (402) or a bad parameter
 * (400) will fail again; `lock_timeout` (a 409 while the object is busy) may pass; reusing an
 * idempotency key with other parameters (`idempotency_error`) will not.
 */
function readStripeError(status: number, body: any): PlatformFailure | undefined {
  const error = body?.error;
  if (status < 400 || !error || typeof error !== "object") return undefined;
  const code = text(error.decline_code, 100) ?? text(error.code, 100) ?? text(error.type, 100);
  const param = text(error.param, 100);
  return {
    message: `${text(error.message, 400) ?? code ?? ""}${param ? ` (parameter: ${param})` : ""}`,
    code,
    authFailure: status === 401 ? "error" : null,
    retryable: error.code === "lock_timeout" ? true : error.type === "idempotency_error" ? false : undefined,
  };
}

export const stripe = definePlatform<StripeConfig>({
  id: "stripe",
  name: "Stripe",
  description: "Customers, charges, refunds and Checkout links in Stripe, with a secret or restricted API key.",
  category: "payments",
  authKind: "api_key",
  config: z.object({
    secret_key: secret("A secret key (sk_live_…, sk_test_…) or a restricted key (rk_…) with the resources the tools use."),
    base_url: baseUrlField,
  }),
  secretFields: ["secret_key"],
  defaultBaseUrl: "https://api.stripe.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.secret_key}` }),
  readError: readStripeError,
  // docs.stripe.com/api/idempotent_requests: every POST takes Idempotency-Key; a retried step
  // gets the first attempt's answer back instead of a second customer or refund.
  idempotencyHeader: () => "Idempotency-Key",
  async test(client) {
    const found = await client.request<{ data: unknown[] }>({ method: "GET", path: "/v1/customers", query: { limit: 1 } });
    return `Connected; customers are readable (${found.data.length ? "some" : "none yet"}).`;
  },
  polls: [{ title: "New payment", action: "list_charges", arguments: { limit: 20 }, items_path: "charges", id_path: "id" }],
  tools: [
    requestTool({
      action: "create_customer",
      effect: "write",
      title: "Create a Stripe customer",
      description: "Creates a customer (POST /v1/customers) with an email, name, phone, description and metadata.",
      input: z.object({
        email: z.string().email().max(512).optional(),
        name: z.string().max(256).optional(),
        phone: z.string().max(20).optional(),
        description: z.string().max(350).optional(),
        metadata: Metadata,
      }),
      method: "POST",
      path: "/v1/customers",
      encoding: "form",
      result: customer,
    }),
    requestTool({
      action: "get_customer",
      effect: "read",
      title: "Get a Stripe customer",
      description: "Reads a customer (GET /v1/customers/{id}).",
      input: z.object({ customer_id: Id("cus") }),
      method: "GET",
      path: "/v1/customers/{customer_id}",
      result: customer,
    }),
    requestTool({
      action: "list_customers",
      effect: "read",
      title: "List Stripe customers",
      description: "Lists customers, newest first (GET /v1/customers), optionally those with one email; pass next_cursor for the next page (null: no more).",
      input: z.object({ email: z.string().email().max(512).optional(), limit: Limit, cursor: Cursor }),
      method: "GET",
      path: "/v1/customers",
      query: (args) => ({ limit: args.limit, starting_after: args.cursor, email: args.email }),
      result: page("customers", customer),
    }),
    requestTool({
      action: "list_charges",
      effect: "read",
      title: "List Stripe payments",
      description:
        "Lists charges (payments), newest first (GET /v1/charges), optionally of one customer. Each has a stable id, so it drives a 'new Stripe payment' poll trigger (items_path: charges, id_path: id).",
      input: z.object({ customer: Id("cus").optional(), limit: Limit, cursor: Cursor }),
      method: "GET",
      path: "/v1/charges",
      query: (args) => ({ limit: args.limit, starting_after: args.cursor, customer: args.customer }),
      result: page("charges", charge),
    }),
    requestTool({
      action: "create_refund",
      effect: "destructive",
      title: "Refund a Stripe payment",
      description: "Refunds a charge or a payment intent, in full or `amount` (in the smallest currency unit) of it (POST /v1/refunds).",
      input: z
        .object({
          charge: Id("ch").optional(),
          payment_intent: Id("pi").optional(),
          amount: z.number().int().min(1).optional(),
          reason: z.enum(["duplicate", "fraudulent", "requested_by_customer"]).optional(),
          metadata: Metadata,
        })
        .refine((args) => Boolean(args.charge) !== Boolean(args.payment_intent), "Give either charge or payment_intent."),
      method: "POST",
      path: "/v1/refunds",
      encoding: "form",
      result: (r) => ({ id: r.id, amount: r.amount, currency: r.currency, status: r.status, charge: r.charge ?? null }),
    }),
    requestTool({
      action: "create_checkout_session",
      effect: "write",
      title: "Create a Stripe Checkout link",
      description:
        "Creates a hosted Checkout page for prices (POST /v1/checkout/sessions) and returns its `url` to send to the buyer. `mode` is payment (one-off prices) or subscription (recurring ones).",
      input: z.object({
        mode: z.enum(["payment", "subscription"]).default("payment"),
        line_items: z
          .array(z.object({ price: Id("price"), quantity: z.number().int().min(1).max(999_999) }))
          .min(1)
          .max(100),
        success_url: z.string().url().max(5000),
        cancel_url: z.string().url().max(5000).optional(),
        customer: Id("cus").optional(),
        customer_email: z.string().email().max(512).optional(),
        metadata: Metadata,
      }),
      method: "POST",
      path: "/v1/checkout/sessions",
      encoding: "form",
      result: (s) => ({ id: s.id, url: s.url, status: s.status ?? null, expires_at: s.expires_at ?? null }),
    }),
  ],
});
