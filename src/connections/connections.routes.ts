import { z } from "@hono/zod-openapi";
import { authedRoute, conflictError, createRouter, notFoundError } from "../http/router";
import { PageQuery, pageById, pageOf } from "../http/pagination";
import { IntIdParam, Timestamp } from "../http/schemas";
import { inputJsonSchema } from "../lib/json-schema";
import { platformToolName } from "./platforms";
import { deleteConnection, getConnection, listConnections, presentConnection, updateConnection } from "./service";
import { addConnection, reconnectConnection, startOAuthConnection } from "./oauth-flow";
import { validationFailed } from "../core/errors";
import { testConnectionConfig } from "./test-connection";
import { platformPage } from "./platform-list";
import type { Platform } from "./platforms/types";

/** What a PUT may set. */
const Status = z.enum(["active", "error", "expired"]);
/** What a connection may be: `pending` is an OAuth connection waiting for the person to authorize it. */
const ShownStatus = z.enum(["active", "error", "expired", "pending"]);

const OAuthSchema = z
  .object({
    scopes: z.array(z.string()),
    expires_at: Timestamp.nullable().openapi({ description: "When the access token runs out (it is refreshed a minute before); null: it does not." }),
    refreshed_at: Timestamp.nullable(),
  })
  .openapi("ConnectionOAuth", { description: "An OAuth connection's authorization: what was granted and until when. Tokens are never shown." });

const ConnectionSchema = z
  .object({
    connection_id: z.number().int(),
    platform: z.string(),
    name: z.string(),
    config: z.record(z.string(), z.unknown()).openapi({ description: 'Secret fields come back masked ("••••abcd"); send the masked value back to keep them.' }),
    status: ShownStatus,
    error_message: z.string().nullable(),
    auth_mode: z.enum(["config", "oauth2"]).openapi({ description: "`config`: credentials in the config; `oauth2`: an OAuth authorization (see `oauth`)." }),
    oauth: OAuthSchema.nullable(),
    last_used_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("Connection");

const CreatedConnectionSchema = ConnectionSchema.extend({
  authorize_url: z.string().optional().openapi({
    description: "Only for an MCP server behind OAuth: the connection is `pending` until the person authorizes it at this URL (10 minutes).",
  }),
  expires_at: Timestamp.optional(),
});

const PlatformSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    category: z.string(),
    auth_kind: z.string(),
    config_schema: z
      .record(z.string(), z.unknown())
      .openapi({ description: "JSON Schema of `config`; secret fields carry `x-secret: true` and `writeOnly: true`." }),
    secret_fields: z.array(z.string()),
    tools: z.array(z.object({ name: z.string(), title: z.string(), description: z.string(), input_schema: z.record(z.string(), z.unknown()) })),
    tools_from_server: z.boolean().openapi({ description: "True for MCP: the tools are loaded from the connected server." }),
  })
  .openapi("Platform");

const ConnectionBody = z.object({
  platform: z.string().min(1).max(50),
  name: z.string().trim().min(1).max(100),
  config: z.record(z.string(), z.unknown()),
});

const TestResultSchema = z
  .object({
    success: z.boolean(),
    status: z.enum(["active", "error", "expired", "needs_authorization"]),
    message: z.string(),
    tools: z.array(z.string()).optional(),
    authorize_url: z.string().optional().openapi({
      description: "`needs_authorization` (an MCP server behind OAuth): where the person authorizes; completing it creates the connection.",
    }),
    expires_at: Timestamp.optional(),
  })
  .openapi("ConnectionTestResult");

const listPlatforms = authedRoute("data:read", {
  method: "get",
  path: "/connections/platforms",
  tags: ["Connections"],
  summary: "Platforms (the MCP registry)",
  description:
    "Every platform a connection can be made to, with its config schema and the tools it brings: the declared ones, then the caller's custom platforms (`POST /v1/platforms`). Paged: `limit` (default and most 100, which holds every declared platform and a full account's custom ones) and `cursor`; a page also ends once the custom platforms on it weigh 8 MiB as stored (their tools can be large), so follow `next_cursor` until it is null.",
  request: {
    query: PageQuery.extend({
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(100)
        .default(100)
        .openapi({ param: { name: "limit", in: "query" } }),
    }),
  },
  responses: { 200: { description: "Platforms", content: { "application/json": { schema: pageOf(PlatformSchema) } } } },
});

const list = authedRoute("data:read", {
  method: "get",
  path: "/connections",
  tags: ["Connections"],
  summary: "List connections",
  description: "The caller's connections in every status (active, error, expired), newest first, secrets masked.",
  request: { query: PageQuery },
  responses: { 200: { description: "Connections", content: { "application/json": { schema: pageOf(ConnectionSchema) } } } },
});

const get = authedRoute("data:read", {
  method: "get",
  path: "/connections/{connection_id}",
  tags: ["Connections"],
  summary: "Get a connection",
  description: "One of the caller's connections, secrets masked; an OAuth connection shows `oauth` (scopes, expiry), never its tokens.",
  request: { params: IntIdParam("connection_id") },
  responses: { 200: { description: "The connection", content: { "application/json": { schema: ConnectionSchema } } }, ...notFoundError },
});

const create = authedRoute("connections:write", {
  method: "post",
  path: "/connections",
  tags: ["Connections"],
  summary: "Create a connection",
  description:
    "Validates `config` against the platform's schema (422 lists each bad field) and encrypts its secret fields at rest. Platforms that connect only with OAuth (`auth_kind` oauth2) are started with POST /v1/connections/oauth/start. An `mcp` server given no credentials that publishes OAuth protected resource metadata (RFC 9728) is created `pending`, with the `authorize_url` to complete.",
  request: { body: { required: true, content: { "application/json": { schema: ConnectionBody } } } },
  responses: { 201: { description: "Created", content: { "application/json": { schema: CreatedConnectionSchema } } }, ...conflictError },
});

const update = authedRoute("connections:write", {
  method: "put",
  path: "/connections/{connection_id}",
  tags: ["Connections"],
  summary: "Update a connection",
  description: "Replaces name, status and config. Secret fields sent back masked keep their stored value.",
  request: {
    params: IntIdParam("connection_id"),
    body: {
      required: true,
      content: { "application/json": { schema: z.object({ name: ConnectionBody.shape.name, status: Status, config: ConnectionBody.shape.config }) } },
    },
  },
  responses: { 200: { description: "Updated", content: { "application/json": { schema: ConnectionSchema } } }, ...notFoundError },
});

const remove = authedRoute("connections:write", {
  method: "delete",
  path: "/connections/{connection_id}",
  tags: ["Connections"],
  summary: "Delete a connection",
  request: { params: IntIdParam("connection_id") },
  responses: { 204: { description: "Deleted" }, ...notFoundError },
});

const test = authedRoute("connections:write", {
  method: "post",
  path: "/connections/test",
  tags: ["Connections"],
  summary: "Test a connection config before saving",
  description:
    "For `mcp`, connects to the server and lists its tools; for other platforms, makes the platform's cheapest authenticated call. Nothing is stored. A test that reaches outside costs one tool call (429 when they are used up). An `mcp` server that refuses requests without a token and challenges for OAuth (401 with `resource_metadata`) answers `needs_authorization` with an `authorize_url`: completing that authorization creates the connection.",
  request: { body: { required: true, content: { "application/json": { schema: ConnectionBody.omit({ name: true }) } } } },
  responses: { 200: { description: "The outcome of the test", content: { "application/json": { schema: TestResultSchema } } } },
});

const Scopes = z.array(z.string().min(1).max(200)).max(50);
const ReturnTo = z.string().max(2000).openapi({ description: "A page of this hub (same origin) to send the person to once they have authorized." });
const AuthorizationSchema = z
  .object({
    authorize_url: z.string().openapi({
      description:
        "Send the person here: the provider's consent page, with response_type=code, client_id, redirect_uri (<origin>/connections/oauth/callback), state, code_challenge (S256) and scope.",
    }),
    expires_at: Timestamp.openapi({ description: "The authorization must be completed before this (10 minutes)." }),
  })
  .openapi("ConnectionAuthorization");

const startOAuth = authedRoute("connections:write", {
  method: "post",
  path: "/connections/oauth/start",
  tags: ["Connections"],
  summary: "Connect with OAuth",
  description:
    "Creates a connection in status `pending` and answers where to send the person to authorize it (authorization code with PKCE). The provider sends them back to `GET /connections/oauth/callback` (a page, in a browser signed in to the hub as the same person), which stores the tokens encrypted and makes the connection `active`, then redirects to `return_to` or says it worked. Works for platforms with `auth_kind` oauth2 or an `oauth` section (Slack, HubSpot, Google, the generic `oauth2`: `config` may override `authorize_url`/`token_url` and bring `client_id`/`client_secret`) and for `mcp` servers behind OAuth (discovery, dynamic registration, `resource`). The state is single use, bound to the caller, and lasts 10 minutes.",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            platform: ConnectionBody.shape.platform,
            name: ConnectionBody.shape.name,
            config: ConnectionBody.shape.config.optional(),
            scopes: Scopes.optional().openapi({ description: "Scopes to ask for; default: the config's or the platform's." }),
            return_to: ReturnTo.optional(),
          }),
        },
      },
    },
  },
  responses: {
    201: {
      description: "The pending connection and its authorization",
      content: { "application/json": { schema: AuthorizationSchema.extend({ connection_id: z.number().int() }) } },
    },
    ...conflictError,
  },
});

const reconnect = authedRoute("connections:write", {
  method: "post",
  path: "/connections/{connection_id}/reconnect",
  tags: ["Connections"],
  summary: "Reconnect (authorize again)",
  description:
    "A new authorization for a connection made with OAuth (for one that expired: its refresh was refused), or an `mcp` connection whose server asks for OAuth. Same id: the callback replaces its tokens. A connection with credentials in its config is 409. Body optional.",
  request: {
    params: IntIdParam("connection_id"),
    body: { required: false, content: { "application/json": { schema: z.object({ scopes: Scopes.optional(), return_to: ReturnTo.optional() }) } } },
  },
  responses: {
    200: { description: "Where to authorize", content: { "application/json": { schema: AuthorizationSchema } } },
    ...notFoundError,
    ...conflictError,
  },
});

/** Platforms as listed, each with its config schema and tools. */
const platformCatalog = (platforms: Platform[]) =>
  platforms.map((platform) => ({
    id: platform.id,
    name: platform.name,
    description: platform.description,
    category: platform.category,
    auth_kind: platform.authKind,
    config_schema: inputJsonSchema(platform.config),
    secret_fields: [...platform.secretFields],
    tools: platform.tools.map((tool) => ({
      name: platformToolName(platform, tool.action),
      title: tool.title,
      description: tool.description,
      input_schema: inputJsonSchema(tool.input),
    })),
    tools_from_server: platform.id === "mcp",
  }));

export const connectionRoutes = createRouter()
  .openapi(listPlatforms, async (c) => {
    const { platforms, nextCursor } = await platformPage(c.var.ctx, c.req.valid("query"));
    return c.json({ data: platformCatalog(platforms), next_cursor: nextCursor }, 200);
  })
  .openapi(list, async (c) => {
    const box = await c.var.ctx.secrets();
    const page = await pageById(
      c.req.valid("query"),
      (n, before) => listConnections(c.var.ctx, n, before),
      (row) => presentConnection(row, box),
    );
    return c.json(page, 200);
  })
  .openapi(get, async (c) => {
    const row = await getConnection(c.var.ctx, c.req.valid("param").connection_id);
    return c.json(await presentConnection(row, await c.var.ctx.secrets()), 200);
  })
  .openapi(create, async (c) => {
    const { connection, authorization } = await addConnection(c.var.ctx, c.req.valid("json"), new URL(c.req.url).origin);
    const shown = await presentConnection(connection, await c.var.ctx.secrets());
    if (!authorization) return c.json(shown, 201);
    return c.json({ ...shown, authorize_url: authorization.authorizeUrl, expires_at: authorization.expiresAt.toISOString() }, 201);
  })
  .openapi(update, async (c) => {
    const row = await updateConnection(c.var.ctx, c.req.valid("param").connection_id, c.req.valid("json"));
    return c.json(await presentConnection(row, await c.var.ctx.secrets()), 200);
  })
  .openapi(startOAuth, async (c) => {
    const started = await startOAuthConnection(c.var.ctx, c.req.valid("json"), new URL(c.req.url).origin);
    return c.json({ connection_id: started.connection.id, authorize_url: started.authorizeUrl, expires_at: started.expiresAt.toISOString() }, 201);
  })
  .openapi(reconnect, async (c) => {
    const body = c.req.header("Content-Length") === "0" || !c.req.header("Content-Type") ? {} : ((await c.req.json().catch(() => ({}))) as object);
    const input = z.object({ scopes: Scopes.optional(), return_to: ReturnTo.optional() }).safeParse(body);
    if (!input.success) throw validationFailed(input.error.issues.map((i) => ({ location: "body", field: i.path.join("."), message: i.message })));
    const authorization = await reconnectConnection(c.var.ctx, c.req.valid("param").connection_id, input.data, new URL(c.req.url).origin);
    return c.json({ authorize_url: authorization.authorizeUrl, expires_at: authorization.expiresAt.toISOString() }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteConnection(c.var.ctx, c.req.valid("param").connection_id);
    return c.body(null, 204);
  })
  .openapi(test, async (c) => {
    const outcome = await testConnectionConfig(c.var.ctx, c.req.valid("json"), c.req.raw.signal, new URL(c.req.url).origin);
    const { expiresAt, ...shown } = outcome;
    return c.json({ ...shown, ...(expiresAt ? { expires_at: expiresAt.toISOString() } : {}) }, 200);
  });
