// Shopify's GraphQL Admin API (shopify.dev/docs/api/admin-graphql): POST /graphql.json with
// {query, variables} and the X-Shopify-Access-Token header; connections as {nodes, pageInfo}; a
// mutation's refusals in userErrors (status 200); a wrong token a 401 with {errors: "[API] …"}.
import { Answer, Store } from "../fake-kit.mjs";

const ORDERS = [1003, 1002, 1001].map((n) => ({
  id: `gid://shopify/Order/${n}`,
  name: `#${n}`,
  createdAt: `2026-11-2${n - 1000}T09:00:00Z`,
  displayFinancialStatus: n === 1001 ? "REFUNDED" : "PAID",
  displayFulfillmentStatus: "UNFULFILLED",
  email: `buyer${n}@example.com`,
  totalPriceSet: { shopMoney: { amount: `${n - 990}.00`, currencyCode: "EUR" } },
  customer: { id: `gid://shopify/Customer/${n + 5000}`, email: `buyer${n}@example.com` },
}));
const PRODUCTS = [{ id: "gid://shopify/Product/7", title: "Mug", handle: "mug", status: "ACTIVE", totalInventory: 12, createdAt: "2026-11-01T09:00:00Z" }];
const customers = new Store();

/** A connection page: `first` nodes after the cursor (the index of the last node, as an opaque string). */
function connection(nodes, variables) {
  const start = variables.after ? Number(Buffer.from(variables.after, "base64").toString().split(":")[1]) + 1 : 0;
  const page = nodes.slice(start, start + variables.first);
  const end = start + page.length - 1;
  return { nodes: page, pageInfo: { hasNextPage: end + 1 < nodes.length, endCursor: page.length ? Buffer.from(`cursor:${end}`).toString("base64") : null } };
}

function graphql(req) {
  if (!String(req.headers["x-shopify-access-token"] ?? "").startsWith("shpat_"))
    return new Answer(401, { errors: "[API] Invalid API key or access token (unrecognized login or wrong password)" });
  const { query = "", variables = {} } = req.body ?? {};
  if (query.includes("shop {")) return { data: { shop: { name: "Acme Store" } } };
  if (query.includes("orders(")) {
    const paid = variables.query === "financial_status:paid";
    return {
      data: {
        orders: connection(
          ORDERS.filter((o) => !paid || o.displayFinancialStatus === "PAID"),
          variables,
        ),
      },
    };
  }
  if (query.includes("products(")) return { data: { products: connection(PRODUCTS, variables) } };
  if (query.includes("customerCreate(")) {
    const input = variables.input ?? {};
    if (customers.find(req.scenario, (c) => c.email === input.email))
      return { data: { customerCreate: { customer: null, userErrors: [{ field: ["email"], message: "Email has already been taken" }] } } };
    const customer = customers.add(req.scenario, {
      id: `gid://shopify/Customer/${9000 + customers.list(req.scenario).length}`,
      email: input.email,
      firstName: input.firstName ?? null,
      lastName: input.lastName ?? null,
      tags: input.tags ?? [],
    });
    return { data: { customerCreate: { customer, userErrors: [] } } };
  }
  if (query.includes("tagsAdd(")) return { data: { tagsAdd: { node: { id: variables.id }, userErrors: [] } } };
  return { errors: [{ message: "Field 'nope' doesn't exist on type 'QueryRoot'", extensions: { code: "undefinedField" } }] };
}

export const shopifyRoutes = [["POST", /^\/graphql\.json$/, graphql]];
