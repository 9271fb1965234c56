import { z } from "@hono/zod-openapi";
import { authedRoute, conflictError, createRouter, notFoundError } from "../http/router";
import { PageQuery, pageById, pageOf } from "../http/pagination";
import { IntIdParam, Timestamp } from "../http/schemas";
import { inputJsonSchema } from "../lib/json-schema";
import { PLATFORMS, platformToolName } from "./platforms";
import { createConnection, deleteConnection, listConnections, presentConnection, updateConnection } from "./service";
import { testConnectionConfig } from "./test-connection";

const Status = z.enum(["active", "error", "expired"]);

const ConnectionSchema = z
  .object({
    connection_id: z.number().int(),
    platform: z.string(),
    name: z.string(),
    config: z.record(z.string(), z.unknown()).openapi({ description: 'Secret fields come back masked ("••••abcd"); send the masked value back to keep them.' }),
    status: Status,
    error_message: z.string().nullable(),
    last_used_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("Connection");

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
  .object({ success: z.boolean(), status: Status, message: z.string(), tools: z.array(z.string()).optional() })
  .openapi("ConnectionTestResult");

const listPlatforms = authedRoute("data:read", {
  method: "get",
  path: "/connections/platforms",
  tags: ["Connections"],
  summary: "Platforms (the MCP registry)",
  description: "Every platform a connection can be made to, with its config schema and the tools it brings.",
  responses: { 200: { description: "Platforms", content: { "application/json": { schema: z.object({ data: z.array(PlatformSchema) }) } } } },
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

const create = authedRoute("connections:write", {
  method: "post",
  path: "/connections",
  tags: ["Connections"],
  summary: "Create a connection",
  description: "Validates `config` against the platform's schema (422 lists each bad field) and encrypts its secret fields at rest.",
  request: { body: { required: true, content: { "application/json": { schema: ConnectionBody } } } },
  responses: { 201: { description: "Created", content: { "application/json": { schema: ConnectionSchema } } }, ...conflictError },
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
    "For `mcp`, connects to the server and lists its tools; for other platforms, makes the platform's cheapest authenticated call. Nothing is stored. A test that reaches outside costs one tool call (429 when they are used up).",
  request: { body: { required: true, content: { "application/json": { schema: ConnectionBody.omit({ name: true }) } } } },
  responses: { 200: { description: "The outcome of the test", content: { "application/json": { schema: TestResultSchema } } } },
});

const platformCatalog = () =>
  PLATFORMS.map((platform) => ({
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
  .openapi(listPlatforms, (c) => c.json({ data: platformCatalog() }, 200))
  .openapi(list, async (c) => {
    const box = await c.var.ctx.secrets();
    const page = await pageById(
      c.req.valid("query"),
      (n, before) => listConnections(c.var.ctx, n, before),
      (row) => presentConnection(row, box),
    );
    return c.json(page, 200);
  })
  .openapi(create, async (c) => {
    const row = await createConnection(c.var.ctx, c.req.valid("json"));
    return c.json(await presentConnection(row, await c.var.ctx.secrets()), 201);
  })
  .openapi(update, async (c) => {
    const row = await updateConnection(c.var.ctx, c.req.valid("param").connection_id, c.req.valid("json"));
    return c.json(await presentConnection(row, await c.var.ctx.secrets()), 200);
  })
  .openapi(remove, async (c) => {
    await deleteConnection(c.var.ctx, c.req.valid("param").connection_id);
    return c.body(null, 204);
  })
  .openapi(test, async (c) => c.json(await testConnectionConfig(c.var.ctx, c.req.valid("json"), c.req.raw.signal), 200));
