// Stripe's API (docs.stripe.com/api): form-encoded requests with a Bearer secret key, lists as
// {object: "list", url, has_more, data} newest first paged by starting_after, errors as
// {error: {type, code, message, param}}.
import { Answer, Store, formOf } from "../fake-kit.mjs";

const customers = new Store();
let serial = 0;

const stripeError = (status, type, code, message, param) =>
  new Answer(status, {
    error: { type, ...(code ? { code } : {}), message, ...(param ? { param } : {}), doc_url: `https://stripe.com/docs/error-codes/${code}` },
  });

/** Charges newest first; ch_3 is already refunded. */
const CHARGES = [3, 2, 1].map((n) => ({
  id: `ch_${n}`,
  object: "charge",
  amount: 1000 * n,
  currency: "usd",
  status: "succeeded",
  paid: true,
  refunded: n === 3,
  customer: "cus_fixed1",
  billing_details: { email: `buyer${n}@example.com` },
  description: `Order ${n}`,
  payment_intent: `pi_${n}`,
  created: 1763800000 + n,
}));

function list(url, items, query) {
  const start = query.starting_after ? items.findIndex((i) => i.id === query.starting_after) + 1 : 0;
  const limit = Number(query.limit ?? 10);
  const data = items.slice(start, start + limit);
  return { object: "list", url, has_more: start + limit < items.length, data };
}

/** Unknown keys are refused, as Stripe does ("Received unknown parameter"). */
function unknownParameter(form, known) {
  const name = Object.keys(form)
    .map((key) => key.split("[")[0])
    .find((key) => !known.includes(key));
  return name && stripeError(400, "invalid_request_error", "parameter_unknown", `Received unknown parameter: ${name}`, name);
}

function createCustomer(req) {
  const form = formOf(req);
  const refused = unknownParameter(form, ["email", "name", "phone", "description", "metadata"]);
  if (refused) return refused;
  const metadata = Object.fromEntries(
    Object.entries(form)
      .filter(([key]) => key.startsWith("metadata["))
      .map(([key, value]) => [key.slice(9, -1), value]),
  );
  serial += 1;
  return customers.add(req.scenario, {
    id: `cus_T${serial}`,
    object: "customer",
    email: form.email ?? null,
    name: form.name ?? null,
    phone: form.phone ?? null,
    description: form.description ?? null,
    created: 1763800000 + serial,
    livemode: false,
    metadata,
  });
}

function refund(req) {
  const form = formOf(req);
  const charge = CHARGES.find((c) => c.id === form.charge || c.payment_intent === form.payment_intent);
  if (!charge) return stripeError(404, "invalid_request_error", "resource_missing", `No such charge: '${form.charge ?? form.payment_intent}'`, "charge");
  if (charge.refunded) return stripeError(400, "invalid_request_error", "charge_already_refunded", `Charge ${charge.id} has already been refunded.`);
  return {
    id: "re_1",
    object: "refund",
    amount: Number(form.amount ?? charge.amount),
    currency: "usd",
    status: "succeeded",
    charge: charge.id,
    reason: form.reason ?? null,
  };
}

function checkoutSession(req) {
  const form = formOf(req);
  if (!form.success_url) return stripeError(400, "invalid_request_error", "parameter_missing", "Missing required param: success_url.", "success_url");
  if (!form["line_items[0][price]"]) return stripeError(400, "invalid_request_error", "parameter_missing", "Missing required param: line_items.", "line_items");
  return {
    id: "cs_test_a1",
    object: "checkout.session",
    mode: form.mode,
    status: "open",
    url: "https://checkout.stripe.com/c/pay/cs_test_a1",
    expires_at: 1763886400,
  };
}

export const stripeRoutes = [
  ["POST", /^\/v1\/customers$/, createCustomer],
  [
    "GET",
    /^\/v1\/customers$/,
    (req) =>
      list(
        "/v1/customers",
        customers.list(req.scenario).filter((c) => !req.query.email || c.email === req.query.email),
        req.query,
      ),
  ],
  [
    "GET",
    /^\/v1\/customers\/(cus_\w+)$/,
    (req, m) =>
      customers.find(req.scenario, (c) => c.id === m[1]) ?? stripeError(404, "invalid_request_error", "resource_missing", `No such customer: '${m[1]}'`, "id"),
  ],
  [
    "GET",
    /^\/v1\/charges$/,
    (req) =>
      list(
        "/v1/charges",
        CHARGES.filter((c) => !req.query.customer || c.customer === req.query.customer),
        req.query,
      ),
  ],
  ["POST", /^\/v1\/refunds$/, refund],
  ["POST", /^\/v1\/checkout\/sessions$/, checkoutSession],
];
