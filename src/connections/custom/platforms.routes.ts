import { z } from "@hono/zod-openapi";
import { authedRoute, conflictError, createRouter, notFoundError } from "../../http/router";
import { PageQuery, pageById, pageOf } from "../../http/pagination";
import { Timestamp } from "../../http/schemas";
import { inputJsonSchema } from "../../lib/json-schema";
import type { CustomPlatformRow } from "../../db/schema";
import { platformOf } from "./custom-platform";
import type { CustomAuth, ToolDeclaration } from "./declarations";
import { type CustomPlatformSummary, createCustomPlatform, deleteCustomPlatform, getCustomPlatform, listCustomPlatforms } from "./store";

const CustomPlatformFields = z.object({
  platform_id: z.string().openapi({ example: "cp_k3j9x2m1", description: "Use as `platform` of a connection; its tools are named `<platform_id>_<action>`." }),
  name: z.string(),
  description: z.string(),
  openapi_version: z.string(),
  server_url: z.string().openapi({ description: "The document's first server: where calls go unless a connection's `base_url` overrides it." }),
  auth: z.record(z.string(), z.unknown()).openapi({
    description: "From `securitySchemes`: `{kind: none | api_key (in, name) | bearer | basic | oauth2 (authorize_url, token_url, scopes), scheme}`.",
  }),
  auth_kind: z.string(),
  config_schema: z.record(z.string(), z.unknown()).openapi({ description: "JSON Schema of a connection's `config`; secret fields carry `x-secret: true`." }),
  secret_fields: z.array(z.string()),
  tool_count: z.number().int().openapi({ description: "How many tools (operations) the platform has." }),
  created_at: Timestamp,
});

const CustomPlatformSchema = CustomPlatformFields.extend({
  tools: z.array(
    z.object({
      name: z.string(),
      operation_id: z.string(),
      title: z.string(),
      description: z.string(),
      method: z.string(),
      path: z.string(),
      input_schema: z.record(z.string(), z.unknown()),
    }),
  ),
}).openapi("CustomPlatform");

/** A list item: the platform without its tools, which can be 1.9 MB each (`GET /v1/platforms/{platform_id}` has them). */
const CustomPlatformSummarySchema = CustomPlatformFields.openapi("CustomPlatformSummary");

const PlatformIdParam = z.object({
  platform_id: z
    .string()
    .max(50)
    .openapi({ param: { name: "platform_id", in: "path" }, example: "cp_k3j9x2m1" }),
});

const create = authedRoute("data:write", {
  method: "post",
  path: "/platforms",
  tags: ["Platforms"],
  summary: "Add a custom platform from an OpenAPI document",
  description:
    "Turns an OpenAPI 3.0/3.1 document (JSON, at most 2 MiB and 500 operations) into a platform private to the caller. Each GET, POST, PUT, PATCH or DELETE operation becomes a tool `<platform_id>_<operationId in snake_case>` (method and path when it has no operationId) whose input is its path, query and header parameters by name plus `body` (a JSON request body). The connection's auth comes from the first usable scheme of `security`/`securitySchemes`: apiKey in a header or the query, http bearer or basic, oauth2 authorization code. The first server URL must be absolute and pass the outbound address rules (a connection may override it with `base_url`). Local `$ref`s are resolved; schemas nested deeper than 12 levels or cycling are cut to `{}`. At most 20 custom platforms per account (then 409 `quota_exceeded`).",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            openapi: z.record(z.string(), z.unknown()).openapi({ description: "The OpenAPI document, as a JSON object." }),
            name: z.string().trim().min(1).max(100).optional().openapi({ description: "Default: the document's `info.title`." }),
          }),
        },
      },
    },
  },
  responses: { 201: { description: "The platform", content: { "application/json": { schema: CustomPlatformSchema } } } },
});

const list = authedRoute("data:read", {
  method: "get",
  path: "/platforms",
  tags: ["Platforms"],
  summary: "List custom platforms",
  description: "The caller's custom platforms, newest first, each with its `tool_count` but not its tools (`GET /v1/platforms/{platform_id}` has them).",
  request: { query: PageQuery },
  responses: { 200: { description: "Custom platforms", content: { "application/json": { schema: pageOf(CustomPlatformSummarySchema) } } } },
});

const get = authedRoute("data:read", {
  method: "get",
  path: "/platforms/{platform_id}",
  tags: ["Platforms"],
  summary: "Get a custom platform",
  request: { params: PlatformIdParam },
  responses: { 200: { description: "The platform", content: { "application/json": { schema: CustomPlatformSchema } } }, ...notFoundError },
});

const remove = authedRoute("data:write", {
  method: "delete",
  path: "/platforms/{platform_id}",
  tags: ["Platforms"],
  summary: "Delete a custom platform",
  description: "A platform that still has connections is 409 (naming them): delete those first.",
  request: { params: PlatformIdParam },
  responses: { 204: { description: "Deleted" }, ...notFoundError, ...conflictError },
});

/** What a list shows of a platform: its auth and connection config come from the `auth` column alone. */
function summaryOf(row: CustomPlatformSummary) {
  const platform = platformOf({ ...row, tools: [] });
  return {
    platform_id: row.uid,
    name: row.name,
    description: row.description,
    openapi_version: row.openapiVersion,
    server_url: row.serverUrl,
    auth: row.auth as CustomAuth,
    auth_kind: platform.authKind,
    config_schema: inputJsonSchema(platform.config),
    secret_fields: [...platform.secretFields],
    tool_count: row.toolCount,
    created_at: row.createdAt.toISOString(),
  };
}

function present(row: CustomPlatformRow) {
  const platform = platformOf(row);
  const declarations = new Map((row.tools as ToolDeclaration[]).map((d) => [d.action, d]));
  return {
    ...summaryOf(row),
    tool_count: platform.tools.length,
    tools: platform.tools.map((tool) => {
      const declaration = declarations.get(tool.action)!;
      return {
        name: `${row.uid}_${tool.action}`,
        operation_id: declaration.operation_id,
        title: tool.title,
        description: tool.description,
        method: declaration.method,
        path: declaration.path,
        input_schema: declaration.input_schema,
      };
    }),
  };
}

export const customPlatformRoutes = createRouter()
  .openapi(create, async (c) => c.json(present(await createCustomPlatform(c.var.ctx, c.req.valid("json"))), 201))
  .openapi(list, async (c) => c.json(await pageById(c.req.valid("query"), (n, before) => listCustomPlatforms(c.var.ctx, n, before), summaryOf), 200))
  .openapi(get, async (c) => c.json(present(await getCustomPlatform(c.var.ctx, c.req.valid("param").platform_id)), 200))
  .openapi(remove, async (c) => {
    await deleteCustomPlatform(c.var.ctx, c.req.valid("param").platform_id);
    return c.body(null, 204);
  });
