import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { PlatformError, type PlatformClient, type PlatformFailure, baseUrlField, definePlatform, platformTool, secret } from "./types";

type ShopifyConfig = { shop: string; access_token: string; base_url?: string };

/** The Admin API version the queries are written against (shopify.dev/docs/api/usage/versioning). */
const API_VERSION = "2025-01";
const Limit = z.number().int().min(1).max(250).default(20);
const Cursor = z.string().max(500).optional().describe("The previous page's next_cursor.");
const Gid = (type: string) => z.string().regex(new RegExp(`^gid://shopify/${type}/\\d{1,20}$`), `A Shopify ${type} id (gid://shopify/${type}/…).`);

/**
 * Shopify's error reader for the GraphQL Admin API: query errors come with status 200 as
 * `{errors: [{message, extensions: {code}}]}` (THROTTLED when the cost bucket is empty: worth
 * retrying); a wrong token is a 401 `{errors: "[API] Invalid API key or access token …"}`.
 */
function readShopifyError(status: number, body: any): PlatformFailure | undefined {
  const errors = body?.errors;
  if (typeof errors === "string") return { message: text(errors, 400) ?? "", authFailure: status === 401 ? "error" : null };
  if (!Array.isArray(errors) || !errors.length) return undefined;
  const code = text(errors[0]?.extensions?.code, 100);
  return {
    answer: status < 400 ? (code ?? "error") : undefined,
    message: errors
      .slice(0, 3)
      .map((e: any) => text(e?.message, 300))
      .filter(Boolean)
      .join("; "),
    code,
    authFailure: status === 401 ? "error" : null,
    retryable: code === "THROTTLED" ? true : undefined,
  };
}

/** One GraphQL call; a mutation's userErrors (a refused field) fail the tool with Shopify's words. */
async function graphql<T>(client: PlatformClient<ShopifyConfig>, query: string, variables: Record<string, unknown>, mutation?: string): Promise<T> {
  const answer = await client.request<{ data: any }>({ method: "POST", path: "/graphql.json", body: { query, variables } });
  const userErrors = mutation ? answer.data?.[mutation]?.userErrors : undefined;
  if (Array.isArray(userErrors) && userErrors.length) {
    const words = userErrors
      .slice(0, 5)
      .map((e: any) => `${Array.isArray(e.field) ? `${e.field.join(".")}: ` : ""}${text(e.message, 300)}`)
      .join("; ");
    throw new PlatformError(`Shopify refused it: ${words}`, 422, undefined, { code: text(userErrors[0]?.code, 100) ?? "USER_ERROR", retryable: false });
  }
  return answer.data as T;
}

const ORDERS = `query Orders($first: Int!, $after: String, $query: String) {
  orders(first: $first, after: $after, query: $query, sortKey: CREATED_AT, reverse: true) {
    nodes { id name createdAt displayFinancialStatus displayFulfillmentStatus email
      totalPriceSet { shopMoney { amount currencyCode } } customer { id email } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const PRODUCTS = `query Products($first: Int!, $after: String, $query: String) {
  products(first: $first, after: $after, query: $query, sortKey: CREATED_AT, reverse: true) {
    nodes { id title handle status totalInventory createdAt }
    pageInfo { hasNextPage endCursor }
  }
}`;

const CUSTOMER_CREATE = `mutation CustomerCreate($input: CustomerInput!) {
  customerCreate(input: $input) {
    customer { id email firstName lastName tags }
    userErrors { field message }
  }
}`;

const TAGS_ADD = `mutation TagsAdd($id: ID!, $tags: [String!]!) {
  tagsAdd(id: $id, tags: $tags) {
    node { id }
    userErrors { field message }
  }
}`;

const order = (o: any) => ({
  id: o.id,
  name: o.name,
  created_at: o.createdAt,
  financial_status: o.displayFinancialStatus ?? null,
  fulfillment_status: o.displayFulfillmentStatus ?? null,
  email: o.email ?? null,
  total: o.totalPriceSet?.shopMoney?.amount ?? null,
  currency: o.totalPriceSet?.shopMoney?.currencyCode ?? null,
  customer_id: o.customer?.id ?? null,
});

const nextCursor = (pageInfo: any) => (pageInfo?.hasNextPage ? (pageInfo.endCursor ?? null) : null);

export const shopify = definePlatform<ShopifyConfig>({
  id: "shopify",
  name: "Shopify",
  description: "Orders, products and customers of a Shopify store, through the GraphQL Admin API with a custom app's access token.",
  category: "ecommerce",
  authKind: "api_key",
  config: z.object({
    shop: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,60}$/, 'The store\'s subdomain: "acme" for acme.myshopify.com.')
      .meta({ description: 'The store\'s myshopify subdomain, e.g. "acme" for acme.myshopify.com.' }),
    access_token: secret("The Admin API access token (shpat_…) of a custom app with read_orders, read_products and write_customers."),
    base_url: baseUrlField,
  }),
  secretFields: ["access_token"],
  baseUrl: (config) => config.base_url ?? `https://${config.shop}.myshopify.com/admin/api/${API_VERSION}`,
  authHeaders: (config) => ({ "X-Shopify-Access-Token": config.access_token }),
  readError: readShopifyError,
  async test(client) {
    const data = await graphql<{ shop: { name: string } }>(client, "query { shop { name } }", {});
    return `Connected to ${data.shop.name}.`;
  },
  polls: [{ title: "New order", action: "list_orders", arguments: { limit: 20 }, items_path: "orders", id_path: "id" }],
  tools: [
    platformTool({
      action: "list_orders",
      effect: "read",
      title: "List Shopify orders",
      description:
        "Lists orders newest first, optionally matching a Shopify search (`financial_status:paid`, `email:…`); ids are stable, so it drives a 'new order' poll trigger (items_path: orders, id_path: id).",
      input: z.object({ query: z.string().max(500).optional(), limit: Limit, cursor: Cursor }),
      async run(client, args) {
        const data = await graphql<any>(client, ORDERS, { first: args.limit, after: args.cursor ?? null, query: args.query ?? null });
        return { orders: data.orders.nodes.map(order), next_cursor: nextCursor(data.orders.pageInfo) };
      },
    }),
    platformTool({
      action: "list_products",
      effect: "read",
      title: "List Shopify products",
      description: "Lists products newest first, optionally matching a Shopify search (`status:active`, `title:…`).",
      input: z.object({ query: z.string().max(500).optional(), limit: Limit, cursor: Cursor }),
      async run(client, args) {
        const data = await graphql<any>(client, PRODUCTS, { first: args.limit, after: args.cursor ?? null, query: args.query ?? null });
        return {
          products: data.products.nodes.map((p: any) => ({
            id: p.id,
            title: p.title,
            handle: p.handle,
            status: p.status,
            total_inventory: p.totalInventory ?? null,
            created_at: p.createdAt,
          })),
          next_cursor: nextCursor(data.products.pageInfo),
        };
      },
    }),
    platformTool({
      action: "create_customer",
      effect: "write",
      title: "Create a Shopify customer",
      description: "Creates a customer (customerCreate); Shopify refuses an email already taken with its own words.",
      input: z.object({
        email: z.string().email().max(320),
        first_name: z.string().max(255).optional(),
        last_name: z.string().max(255).optional(),
        phone: z.string().max(30).optional(),
        tags: z.array(z.string().min(1).max(255)).max(50).optional(),
        note: z.string().max(5000).optional(),
      }),
      async run(client, args) {
        const input = { email: args.email, firstName: args.first_name, lastName: args.last_name, phone: args.phone, tags: args.tags, note: args.note };
        const data = await graphql<any>(client, CUSTOMER_CREATE, { input }, "customerCreate");
        const c = data.customerCreate.customer;
        return { id: c.id, email: c.email, first_name: c.firstName ?? null, last_name: c.lastName ?? null, tags: c.tags ?? [] };
      },
    }),
    platformTool({
      action: "add_tags",
      effect: "write",
      title: "Tag a Shopify order, customer or product",
      description: "Adds tags to an order, a customer or a product (tagsAdd), e.g. to mark an order handled.",
      input: z.object({
        id: z.union([Gid("Order"), Gid("Customer"), Gid("Product")]),
        tags: z.array(z.string().min(1).max(255)).min(1).max(50),
      }),
      async run(client, args) {
        const data = await graphql<any>(client, TAGS_ADD, { id: args.id, tags: args.tags }, "tagsAdd");
        return { id: data.tagsAdd.node?.id ?? args.id, tags_added: args.tags };
      },
    }),
  ],
});
