import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { TOOL_EFFECTS } from "../core/tool-effects";
import type { AppEnv } from "../http/app-env";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { PageQuery, pageById, pageOf } from "../http/pagination";
import { Timestamp } from "../http/schemas";
import { toolEventStream } from "./event-stream";
import { listAudit, presentAudit } from "./audit";
import { listTools } from "./catalog-service";
import { CATALOG_PAGE_DEFAULT, CATALOG_PAGE_MAX } from "./catalog-build";
import { prepareToolCall, runToolCall } from "./executor";
import { rateLimitHeaders } from "../http/rate-limit";
import type { RateLimitResult } from "../http/rate-limiter";

const flag = z
  .enum(["true", "false", "1", "0"])
  .optional()
  .transform((v) => v === "true" || v === "1");

const ToolInfoSchema = z
  .object({
    name: z.string().openapi({ example: "slack_send_message" }),
    title: z.string(),
    description: z.string(),
    source: z.enum(["builtin", "platform", "mcp"]),
    platform: z.string().nullable(),
    connection_id: z.number().int().nullable().openapi({ description: "The connection the tool runs through by default." }),
    input_schema: z.record(z.string(), z.unknown()),
    effect: z.enum(TOOL_EFFECTS).openapi({
      description:
        "What a call does. `read`: no side effect. `write`: changes something small or that can be undone (posts one message, creates or updates a record). `destructive`: irreversible or wide (deletes, refunds or charges, sends a campaign to a list, cancels). Platform and built-in tools declare it; MCP tools take it from their annotations (readOnlyHint → read, destructiveHint → destructive, else write); custom platform operations from their method (GET and HEAD read, DELETE destructive, others write).",
    }),
    available: z.boolean(),
    unavailable_reason: z.string().optional(),
  })
  .openapi("Tool");

const ToolResultSchema = z
  .object({
    name: z.string(),
    success: z.boolean(),
    result: z.unknown(),
    error_message: z.string().nullable(),
    duration_ms: z.number().int(),
    call_id: z.string(),
    error_status: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The HTTP status a platform (or http_request's server) failed with; 0 when it could not be reached; null otherwise." }),
    retryable: z.boolean().openapi({
      description:
        "Whether the same call may succeed if tried again: false for permanent answers (400, 401, 403, 404, 409, 410, 422…), which a workflow step does not retry unless its `retry.on` lists the status.",
    }),
    retry_after_seconds: z.number().int().nullable().openapi({ description: "How long the platform asked to wait before trying again (Retry-After)." }),
  })
  .openapi("ToolResult");

const ExecuteBody = z.object({ name: z.string().min(1).max(200), arguments: z.record(z.string(), z.unknown()) });

const listToolsRoute = authedRoute("data:read", {
  method: "get",
  path: "/tools",
  tags: ["Tools"],
  summary: "List tools",
  description: [
    "By default: the tools the caller can run now — built-ins, the tools of their active connections, and the tools of their active MCP connections (loaded from each server and cached).",
    "`include_all=true` adds the tools of the caller's connections that need attention (status error or expired), with `available: false` and the reason.",
    "`all=true` adds the tools of every platform the caller has not connected yet, with `available: false` and what to connect.",
    "`refresh=true` reloads MCP tool lists from the servers (at most 10 a request, the longest unasked first) and costs one tool call.",
    `Paged: \`limit\` tools a page (default ${CATALOG_PAGE_DEFAULT}, which holds a usual catalog whole; at most ${CATALOG_PAGE_MAX}), and \`next_cursor\` (null on the last page) to pass as \`cursor\`.`,
    "A page may hold fewer than `limit` tools when the tool lists it read are large (8 MiB of stored lists a page); follow `next_cursor` until it is null.",
  ].join(" "),
  request: {
    query: PageQuery.extend({
      include_all: flag,
      all: flag,
      refresh: flag,
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(CATALOG_PAGE_MAX)
        .default(CATALOG_PAGE_DEFAULT)
        .openapi({ param: { name: "limit", in: "query" } }),
    }),
  },
  responses: {
    200: {
      description: "A page of the catalog",
      content: {
        "application/json": {
          schema: z.object({
            tools: z.array(ToolInfoSchema),
            next_cursor: z.string().nullable().openapi({ description: "Pass as ?cursor= for the next page; null at the end." }),
          }),
        },
      },
    },
  },
});

const execute = authedRoute("workflow:execute", {
  method: "post",
  path: "/tools/execute",
  tags: ["Tools"],
  summary: "Execute a tool",
  description:
    "Runs a tool by its unique name. Arguments are validated against the tool's input schema (422 names each bad field). A tool that runs and fails answers 200 with `success: false` and `error_message`; a platform refusing the connection's credentials also marks the connection `error` or `expired`. Tool calls are rate limited per user and audited.",
  request: { body: { required: true, content: { "application/json": { schema: ExecuteBody } } } },
  responses: {
    200: { description: "The tool's result", content: { "application/json": { schema: ToolResultSchema } } },
    ...notFoundError,
    409: { description: "The tool needs a connection that is missing or unreadable." },
  },
});

const stream = authedRoute("workflow:execute", {
  method: "post",
  path: "/tools/execute/stream",
  tags: ["Tools"],
  summary: "Execute a tool, streaming progress (SSE)",
  description:
    "Same body and checks as /v1/tools/execute; then a `text/event-stream` with events `start` ({call_id, name}), `progress` ({progress, total?, message?}, forwarded from MCP progress notifications), `log` ({level, message}), then `result` (the ToolResult) or `error` ({error_message}), and finally `end`. Closing the connection cancels the call.",
  request: { body: { required: true, content: { "application/json": { schema: ExecuteBody } } } },
  responses: { 200: { description: "Server-Sent Events", content: { "text/event-stream": { schema: z.string() } } }, ...notFoundError },
});

const auditLogs = authedRoute("data:read", {
  method: "get",
  path: "/audit-logs",
  tags: ["Tools"],
  summary: "Audit log of tool calls",
  description: "The caller's own tool calls, newest first: tool, connection, credential, arguments with secrets redacted, outcome, duration and error.",
  request: { query: PageQuery },
  responses: {
    200: {
      description: "Audit records",
      content: {
        "application/json": {
          schema: pageOf(
            z
              .object({
                id: z.number().int(),
                call_id: z.string(),
                tool: z.string(),
                connection_id: z.number().int().nullable(),
                credential_id: z.string(),
                source: z.string(),
                arguments: z.unknown(),
                outcome: z.enum(["success", "error"]),
                error_message: z.string().nullable(),
                duration_ms: z.number().int(),
                created_at: Timestamp,
              })
              .openapi("AuditRecord"),
          ),
        },
      },
    },
  },
});

/** The tool-call limit spent, as RateLimit fields (appended: the request limits are reported too). */
function reportLimits(c: Context<AppEnv>, limits: RateLimitResult[]) {
  for (const [name, value] of Object.entries(rateLimitHeaders(limits))) c.header(name, value, { append: true });
}

export const toolRoutes = createRouter()
  .openapi(listToolsRoute, async (c) => {
    const { include_all, all, refresh, limit, cursor } = c.req.valid("query");
    const { tools, nextCursor, limits } = await listTools(c.var.ctx, { includeAll: include_all, all, refresh, limit, cursor });
    reportLimits(c, limits);
    return c.json({ tools, next_cursor: nextCursor }, 200);
  })
  .openapi(execute, async (c) => {
    const body = c.req.valid("json");
    const { call, limits } = await prepareToolCall(c.var.ctx, body.name, body.arguments);
    const result = await runToolCall(c.var.ctx, call, { source: "api", signal: c.req.raw.signal });
    reportLimits(c, limits);
    return c.json(result, 200);
  })
  .openapi(stream, async (c) => {
    const body = c.req.valid("json");
    const ctx = c.var.ctx;
    // Everything that can be refused is refused before the stream starts, as a plain HTTP error.
    const { call, limits } = await prepareToolCall(ctx, body.name, body.arguments);
    reportLimits(c, limits);
    return toolEventStream(c, ctx, call, "stream") as any;
  })
  .openapi(auditLogs, async (c) => {
    const page = await pageById(c.req.valid("query"), (n, before) => listAudit(c.var.ctx, n, before), presentAudit);
    return c.json(page, 200);
  });
