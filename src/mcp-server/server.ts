import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  CancelledNotificationSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { mcpAnnotationsOf } from "../core/tool-effects";
import { catalogPageFor } from "../tools/catalog-service";
import { CATALOG_PAGE_DEFAULT } from "../tools/catalog-build";
import { prepareToolCall, runToolCall } from "../tools/executor";
import { getTemplate, listTemplates, presentTemplate } from "../templates/service";
import { listActiveWorkflows } from "../workflows/service";
import { HUB_TOOLS, parseWorkflowToolName, runWorkflowTool, workflowTool } from "./hub-tools";
import { loggableError } from "../lib/safe-log";

const SERVER_INFO = { name: "agent-automation-hub", title: "Agent Automation Hub", version: "1.0.0" };
const TEMPLATE_URI = /^template:\/\/([A-Za-z0-9_-]{1,100})$/;
/** Active workflows listed as tools (on the first page of tools/list, with the hub's own). */
const MAX_WORKFLOW_TOOLS = 200;

/**
 * Calls in flight in this isolate, so a `notifications/cancelled` that arrives in another POST
 * (the transport keeps no session) can still stop the call it names. Keyed by credential and
 * JSON-RPC id, so one client can only cancel its own calls. The notification only raises a flag:
 * the call's own request notices it and aborts (one request may not touch another's I/O).
 */
const callsInFlight = new Map<string, Set<{ cancelled: boolean }>>();
const CANCEL_CHECK_MS = 100;

/**
 * The hub as an MCP server for one request: every operation goes through the same services as
 * REST (catalog, executor with its limits and audit, workflow runs, templates), acting as the
 * caller. The HTTP layer has already checked the scope each message needs (`scopeFor`).
 */
export function hubMcpServer(ctx: ServiceContext, requestSignal: AbortSignal, origin: string): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, resources: {} },
    instructions:
      "Tools of the Agent Automation Hub: your connected platforms and MCP servers, built-in tools, your active workflows (workflow_<id>) and hub_* tools to list workflows, follow executions and run agents.",
  });

  server.onerror = (error) => logFailure(ctx, error);
  const guard = guarded(ctx);

  // Paged as MCP provides (cursor, nextCursor), with the same pages and bounds as GET /v1/tools:
  // the first page also carries the active workflows and the hub's own tools, so a client that
  // reads only one page still has them.
  server.setRequestHandler(
    ListToolsRequestSchema,
    guard(async (request) => {
      const cursor = request.params?.cursor;
      const [page, active] = await Promise.all([
        catalogPageFor(ctx, {}, { limit: CATALOG_PAGE_DEFAULT, cursor }).catch((error: unknown) => {
          if (error instanceof HubError && error.code === "validation_failed")
            throw new McpError(ErrorCode.InvalidParams, "Invalid cursor: use nextCursor from a previous tools/list.");
          throw error;
        }),
        cursor === undefined ? listActiveWorkflows(ctx, MAX_WORKFLOW_TOOLS) : [],
      ]);
      return {
        tools: [
          ...page.tools.map((tool) => ({
            name: tool.name,
            title: tool.title,
            description: tool.description,
            inputSchema: asObjectSchema(tool.input_schema),
            annotations: mcpAnnotationsOf(tool.effect),
          })),
          ...active.map(workflowTool),
          ...(cursor === undefined ? HUB_TOOLS.map(({ name, title, description, inputSchema }) => ({ name, title, description, inputSchema })) : []),
        ],
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    }),
  );

  server.setRequestHandler(
    CallToolRequestSchema,
    guard(async (request, extra): Promise<CallToolResult> => {
      const { name } = request.params;
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const key = `${ctx.credential.id}:${String(extra.requestId)}`;
      // Two clients sharing a credential may use the same request id: each call has its own flag.
      const flag = { cancelled: false };
      const flags = callsInFlight.get(key) ?? new Set();
      callsInFlight.set(key, flags.add(flag));
      const cancel = new AbortController();
      const watch = setInterval(() => flag.cancelled && cancel.abort(new Error("Cancelled by the client.")), CANCEL_CHECK_MS);
      const signal = AbortSignal.any([extra.signal, cancel.signal, requestSignal]);
      try {
        const workflowId = parseWorkflowToolName(name);
        if (workflowId !== undefined) return asToolResult(await runWorkflowTool(ctx, workflowId, args));
        const hubTool = HUB_TOOLS.find((tool) => tool.name === name);
        if (hubTool) return asToolResult(await hubTool.run(ctx, args, origin));
        const token = request.params._meta?.progressToken;
        const { call } = await prepareToolCall(ctx, name, args);
        const result = await runToolCall(ctx, call, {
          source: "mcp",
          signal,
          onProgress: (update) => {
            if (token === undefined) return;
            void extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, ...update } }).catch(() => undefined);
          },
        });
        return asToolResult({ result: { ...result }, failed: !result.success });
      } catch (error) {
        return refusal(error);
      } finally {
        clearInterval(watch);
        flags.delete(flag);
        if (flags.size === 0) callsInFlight.delete(key);
      }
    }),
  );

  server.setNotificationHandler(CancelledNotificationSchema, async (notification) => {
    const id = notification.params.requestId;
    if (id === undefined) return;
    for (const call of callsInFlight.get(`${ctx.credential.id}:${String(id)}`) ?? []) call.cancelled = true;
  });

  server.setRequestHandler(
    ListResourcesRequestSchema,
    guard(async () => {
      const rows = await listTemplates(ctx.db, {});
      return {
        resources: rows.map((t) => ({
          uri: `template://${t.id}`,
          name: t.id,
          title: t.name,
          description: t.description,
          mimeType: "application/json",
        })),
      };
    }),
  );

  server.setRequestHandler(
    ReadResourceRequestSchema,
    guard(async (request) => {
      const id = request.params.uri.match(TEMPLATE_URI)?.[1];
      if (!id) throw new McpError(ErrorCode.InvalidParams, `Unknown resource "${request.params.uri}"; resources are templates, template://<id>.`);
      try {
        const template = await getTemplate(ctx.db, id);
        return { contents: [{ uri: request.params.uri, mimeType: "application/json", text: JSON.stringify(presentTemplate(template)) }] };
      } catch (error) {
        if (error instanceof HubError && error.code === "not_found") throw new McpError(-32002, `Resource not found: ${request.params.uri}`);
        throw error;
      }
    }),
  );

  return server;
}

/**
 * A handler whose failures reach the client as MCP errors: the hub's refusals with their message,
 * anything else logged here and answered with only the request id (as REST hides a 500's cause).
 */
function guarded(ctx: ServiceContext) {
  return <A extends unknown[], R>(handler: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await handler(...args);
      } catch (error) {
        if (error instanceof McpError) throw error;
        if (error instanceof HubError) throw new McpError(ErrorCode.InvalidRequest, error.message);
        logFailure(ctx, error);
        throw new McpError(ErrorCode.InternalError, `The hub failed; quote request ${ctx.requestId} when reporting it.`);
      }
    };
}

function logFailure(ctx: ServiceContext, error: unknown) {
  console.error(JSON.stringify({ level: "error", message: "mcp request failed", request_id: ctx.requestId, error: loggableError(error) }));
}

/** The same JSON as REST answers, as structured content and as text for clients that read only text. */
function asToolResult({ result, failed }: { result: Record<string, unknown>; failed?: boolean }): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result, isError: failed === true };
}

/**
 * A call the hub refused. An unknown tool is a protocol error (MCP says so); anything else (bad
 * arguments, a missing connection, a rate limit, a paused workflow) is a tool error the model
 * can read and act on, with the same code and message as the REST problem.
 */
function refusal(error: unknown): CallToolResult {
  if (!(error instanceof HubError)) throw error;
  if (error.code === "not_found" && /^No tool named/.test(error.message)) throw new McpError(ErrorCode.InvalidParams, error.message);
  const detail = { error: error.code, message: error.message, ...(error.errors ? { errors: error.errors } : {}) };
  const retry = error.hints.retryAfterSeconds !== undefined ? ` Retry in ${error.hints.retryAfterSeconds} s.` : "";
  return { content: [{ type: "text", text: `${error.message}${retry}` }], structuredContent: detail, isError: true };
}

/** MCP wants every input schema to be an object schema. */
function asObjectSchema(schema: Record<string, unknown>): { type: "object"; [key: string]: unknown } {
  return schema.type === "object" ? (schema as { type: "object" }) : { type: "object", properties: {} };
}
