import type { z } from "@hono/zod-openapi";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { ServiceContext } from "../core/context";
import type { SecretBox } from "../core/secret-box";
import type { Connection } from "../db/schema";
import { openConfig } from "../connections/config-codec";
import { findPlatform } from "../connections/platforms";
import { platformClient } from "../connections/platforms/client";
import { connectionGovernorName, governorFor } from "../connections/governor";
import type { McpConfig } from "../connections/platforms/mcp";
import { PlatformError, type Platform } from "../connections/platforms/types";
import { defaultConnection, recordConnectionHealth } from "../connections/service";
import { connectionInUse } from "../connections/in-use";
import { platformCallConfig, withMcpToken } from "../connections/oauth-tokens";
import { SecretUnreadable } from "../core/secret-box";
import { HubError, type FieldError } from "../core/errors";
import { chargeToolCalls, rateLimitHeaders } from "../http/rate-limit";
import type { RateLimitResult } from "../http/rate-limiter";
import { addressPolicyFor } from "../net/address-policy";
import { OutboundRefused } from "../net/safe-fetch";
import { randomToken } from "../lib/crypto";
import { UserSchemaValidator, schemaProblems } from "../lib/user-json-schema";
import { recordAudit } from "./audit";
import { mcpToolName, parseToolName, platformToolInput } from "./catalog";
import { customToolOrAsIs } from "./custom-tools";
import { McpError } from "../connections/mcp-client";
import { callMcpTool } from "../connections/mcp-session";
import { mcpToolsOf } from "./mcp/tools-cache";
import { ToolError, type ProgressUpdate, type ToolContext } from "./types";
import { loggableError } from "../lib/safe-log";

/** The result of one tool call, as the API returns it. */
export interface ToolResult {
  name: string;
  success: boolean;
  result: unknown;
  error_message: string | null;
  duration_ms: number;
  call_id: string;
  /** The HTTP status a platform (or http_request's server) failed with; 0 when it could not be reached; null otherwise. */
  error_status: number | null;
  /**
   * Whether trying the same call again may succeed: false for a platform's permanent answers
   * (400, 401, 403, 404, 409, 410, 422…), true for transient ones and for other failures.
   */
  retryable: boolean;
  /** How long the platform asked to wait before trying again (Retry-After), in seconds. */
  retry_after_seconds: number | null;
}

export interface ExecutionHooks {
  /** Where the call came from, for the audit log: api, stream, conversation, workflow… */
  source: string;
  signal?: AbortSignal;
  /** See ToolContext.idempotencyKey. */
  idempotencyKey?: string;
  onProgress?: (update: ProgressUpdate) => void;
  onLog?: (level: string, message: string) => void;
  /**
   * A call the connection's rate governor held back (nothing was sent) is thrown as the hub's
   * `rate_limited` HubError instead of answered as a failed call: a workflow step parks on it
   * without spending an attempt.
   */
  rethrowRateLimited?: boolean;
}

const TOOL_TIMEOUT_MS = 120_000;

export { chargeToolCalls };

/** A tool resolved and its arguments validated: ready to run. */
export interface PreparedCall {
  name: string;
  connection: Connection | null;
  args: Record<string, unknown>;
  run(ctx: ToolContext): Promise<unknown>;
}

/**
 * Charges the per-user tool-call limit and resolves the named tool with validated arguments.
 * Throws ApiErrors (404 unknown tool, 409 tool unavailable, 422 bad arguments, 429) before
 * anything runs, so callers can answer with a plain HTTP error.
 */
export async function prepareToolCall(
  ctx: ServiceContext,
  name: string,
  rawArgs: unknown,
  options: { charge?: boolean } = {},
): Promise<{ call: PreparedCall; limits: RateLimitResult[] }> {
  // A dry run (validating a call) reads the limit but does not spend it.
  const limits = await chargeToolCalls(ctx, options.charge === false ? 0 : 1);
  const reference = await customToolOrAsIs(ctx, parseToolName(name));
  if (!reference) throw new HubError("not_found", `No tool named "${name}"; GET /v1/tools lists yours.`);
  const policy = addressPolicyFor(ctx.config);

  if (reference.kind === "builtin") {
    const args = validateWithZod(reference.tool.input, rawArgs);
    return { call: { name, connection: null, args, run: (toolCtx) => reference.tool.run(toolCtx, args) }, limits };
  }

  if (reference.kind === "platform") {
    const args = validateWithZod(platformToolInput(reference.tool), rawArgs);
    const { connection_id: chosen, ...toolArgs } = args as { connection_id?: number };
    const connection = await chooseConnection(ctx, reference.platform, chosen);
    const box = await ctx.secrets();
    const config = await readConfig(reference.platform, connection, box);
    return {
      call: {
        name,
        connection,
        args,
        run: async (toolCtx) => {
          // An OAuth connection's token, refreshed first when it runs out within a minute; a refusal refreshes once and retries.
          const authorized = await platformCallConfig(ctx, reference.platform, connection, config);
          return reference.tool.run(
            platformClient(reference.platform, authorized.config, {
              policy,
              signal: toolCtx.signal,
              idempotencyKey: toolCtx.idempotencyKey,
              governor: governorFor(ctx.bindings, connectionGovernorName(connection), reference.platform, { signal: toolCtx.signal }),
              onUnauthorized: authorized.renew,
            }),
            toolArgs,
            toolCtx,
          );
        },
      },
      limits,
    };
  }

  const connection = await connectionInUse(ctx, reference.connectionId).catch(() => {
    throw new HubError("not_found", `No tool named "${name}": MCP connection ${reference.connectionId} is not yours or does not exist.`);
  });
  if (connection.platform !== "mcp") throw new HubError("not_found", `No tool named "${name}".`);
  const box = await ctx.secrets();
  const config = (await readConfig(findPlatform("mcp")!, connection, box)) as McpConfig;
  let tools = await mcpToolsOf(ctx, connection, config, { policy, signal: AbortSignal.timeout(15_000) });
  let tool = tools?.find((t) => mcpToolName(connection.id, t.name) === name);
  if (!tool) {
    // The server may have gained the tool since the list was cached, or be back since it last
    // failed to list (a failure is kept for the TTL): a charged call may ask it.
    tools = await mcpToolsOf(ctx, connection, config, { policy, refresh: true, signal: AbortSignal.timeout(15_000) });
    tool = tools?.find((t) => mcpToolName(connection.id, t.name) === name);
  }
  if (!tools)
    throw new HubError(
      "tool_unavailable",
      `MCP connection ${connection.id} cannot list its tools right now: ${connection.errorMessage ?? "server unreachable"}.`,
    );
  if (!tool) throw new HubError("not_found", `MCP connection ${connection.id} has no tool matching "${name}".`);
  const args = validateWithJsonSchema(tool, rawArgs);
  const mcpTool = tool;
  return {
    call: {
      name,
      connection,
      args,
      run: async (toolCtx) => {
        // A server behind OAuth gets the connection's token (refreshed as it runs out, and once after a 401).
        const result = await withMcpToken(ctx, connection, config, (authorized) =>
          callMcpTool(ctx, connection, authorized, mcpTool.name, args, {
            signal: toolCtx.signal,
            onProgress: (update) => toolCtx.progress(update),
            onLog: (level, message) => toolCtx.log(level as "info", message),
          }),
        );
        if (result.isError) throw new ToolError(textOf(result.content) || "The MCP tool reported an error.");
        return { content: result.content, ...(result.structuredContent ? { structured_content: result.structuredContent } : {}) };
      },
    },
    limits,
  };
}

/** Runs a prepared call: never throws for the tool's own failure, always writes the audit record. */
export const newCallId = () => `call_${randomToken(12)}`;

export async function runToolCall(ctx: ServiceContext, call: PreparedCall, hooks: ExecutionHooks, callId = newCallId()): Promise<ToolResult> {
  const started = Date.now();
  const deadline = AbortSignal.timeout(TOOL_TIMEOUT_MS);
  const signal = hooks.signal ? AbortSignal.any([deadline, hooks.signal]) : deadline;
  const toolCtx: ToolContext = {
    ...ctx,
    policy: addressPolicyFor(ctx.config),
    signal,
    idempotencyKey: hooks.idempotencyKey,
    progress: (update) => hooks.onProgress?.(update),
    log: (level, message) => hooks.onLog?.(level, message),
  };
  let result: unknown = null;
  let errorMessage: string | null = null;
  let failure: Pick<ToolResult, "error_status" | "retryable" | "retry_after_seconds"> = NO_FAILURE;
  let health: { status: "active" | "error" | "expired"; message?: string } | undefined;
  try {
    result = await call.run(toolCtx);
    // A success proves the credentials again: a flagged connection becomes active.
    health = { status: "active" };
  } catch (error) {
    if (hooks.rethrowRateLimited && isRateLimited(error) && !signal.aborted) throw error;
    errorMessage = describeFailure(error, signal);
    failure = classifyFailure(error, signal);
    const authFailure = error instanceof PlatformError ? error.authFailure : error instanceof McpError && error.unauthorized ? "error" : undefined;
    if (authFailure) health = { status: authFailure, message: errorMessage };
    if (!isExpected(error))
      console.error(JSON.stringify({ level: "error", message: "tool failed unexpectedly", tool: call.name, error: loggableError(error) }));
  }
  const outcome: ToolResult = {
    name: call.name,
    success: errorMessage === null,
    result,
    error_message: errorMessage,
    duration_ms: Date.now() - started,
    call_id: callId,
    ...failure,
  };
  // The records are written after the answer has gone (`waitUntil` keeps the invocation alive for
  // them). Outside the tool's own outcome: failing to record must never turn a done deed (an email
  // sent) into a failure that invites a retry.
  const connection = call.connection;
  ctx.waitUntil(
    recordAudit(ctx.db, {
      userId: ctx.workspace.id,
      credentialId: ctx.credential.id,
      callId,
      tool: call.name,
      connectionId: connection?.id ?? null,
      arguments: call.args,
      outcome: outcome.success ? "success" : "error",
      errorMessage,
      durationMs: outcome.duration_ms,
      source: hooks.source,
    }),
  );
  // Health is written at once (it changes rarely), so the next read of the connection shows it.
  if (connection && health) ctx.waitUntil(recordHealthOnce(ctx, connection, health));
  return outcome;
}

/** Writes a connection's health, trying once more on failure; a record lost twice is logged. */
async function recordHealthOnce(ctx: ServiceContext, connection: Connection, health: Parameters<typeof recordConnectionHealth>[2]): Promise<void> {
  const write = () => recordConnectionHealth(ctx.db, connection, health);
  try {
    await write();
  } catch {
    await write().catch((error) =>
      console.error(
        JSON.stringify({ level: "error", message: "could not write the connection health", connection_id: connection.id, error: loggableError(error) }),
      ),
    );
  }
}

/** prepare + run, for callers that do not need the rate-limit results (orchestrator, workflows). */
export async function executeTool(ctx: ServiceContext, name: string, args: unknown, hooks: ExecutionHooks): Promise<ToolResult> {
  const { call } = await prepareToolCall(ctx, name, args);
  return runToolCall(ctx, call, hooks);
}

export { rateLimitHeaders };

async function chooseConnection(ctx: ServiceContext, platform: Platform, chosen: number | undefined): Promise<Connection> {
  if (chosen !== undefined) {
    const connection = await connectionInUse(ctx, chosen);
    if (connection.platform !== platform.id) {
      throw new HubError("validation_failed", `Connection ${chosen} is a ${connection.platform} connection, not ${platform.id}.`, {
        errors: [{ location: "body", field: "arguments.connection_id", message: `Not a ${platform.id} connection.` }],
      });
    }
    return connection;
  }
  const connection = await defaultConnection(ctx, platform.id);
  if (connection) return connection;
  throw new HubError("tool_unavailable", `Connect ${platform.name} first: POST /v1/connections with platform "${platform.id}".`);
}

/**
 * Decrypted settings by the stored (sealed) settings they came from: a connection kept in this
 * isolate (see connectionInUse) is decrypted once, not on every call, and a saved change, which
 * brings new stored settings, is decrypted afresh. Held weakly: they go when the record goes.
 */
const openedConfigs = new WeakMap<object, unknown>();

async function readConfig(platform: Platform, connection: Connection, box: SecretBox): Promise<any> {
  const opened = openedConfigs.get(connection.config);
  if (opened) return opened;
  try {
    const config = await openConfig(platform, connection.config, connection.uid, box);
    openedConfigs.set(connection.config, config);
    return config;
  } catch (error) {
    if (error instanceof SecretUnreadable) {
      throw new HubError(
        "tool_unavailable",
        `Connection ${connection.id}'s stored credentials cannot be decrypted; enter them again with PUT /v1/connections/${connection.id}.`,
      );
    }
    throw error;
  }
}

function validateWithZod(schema: z.ZodType, raw: unknown): Record<string, unknown> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data as Record<string, unknown>;
  throw argumentErrors(result.error.issues.map((issue) => ({ field: issue.path.map(String).join("."), message: issue.message })));
}

/** Compiled input schemas by the tool (from a connection's cached list) they belong to. */
const validators = new WeakMap<McpTool, UserSchemaValidator>();

function validateWithJsonSchema(tool: McpTool, raw: unknown): Record<string, unknown> {
  const args = (raw ?? {}) as Record<string, unknown>;
  if (typeof args !== "object" || Array.isArray(args)) throw argumentErrors([{ field: "", message: "Arguments must be an object." }]);
  let validator = validators.get(tool);
  if (!validator) {
    // A server's schema the hub cannot check in bounded time is refused, not run (DESIGN §5).
    const [problem] = schemaProblems(tool.inputSchema);
    if (problem)
      throw argumentErrors([{ field: "", message: `The tool's input schema cannot be checked here (at ${problem.pointer || "/"}): ${problem.message}` }]);
    validator = new UserSchemaValidator(tool.inputSchema);
    validators.set(tool, validator);
  }
  const result = validator.validate(args);
  if (result.valid) return args;
  throw argumentErrors(
    result.errors
      .filter((e) => e.keyword !== "properties" || result.errors.length === 1)
      .map((e) => ({ field: e.instanceLocation.replace(/^#\/?/, "").replace(/\//g, "."), message: e.error })),
  );
}

function argumentErrors(issues: { field: string; message: string }[]): HubError {
  const errors: FieldError[] = issues.map((i) => ({ location: "body", field: ["arguments", i.field].filter(Boolean).join("."), message: i.message }));
  return new HubError("validation_failed", "The arguments do not fit the tool's input schema.", { errors });
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .filter((c): c is { type: "text"; text: string } => c?.type === "text" && typeof c.text === "string")
    .map((c) => c.text)
    .join("\n")
    .slice(0, 2000);
}

function isExpected(error: unknown): boolean {
  return (
    error instanceof ToolError ||
    error instanceof PlatformError ||
    error instanceof McpError ||
    error instanceof OutboundRefused ||
    (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError"))
  );
}

const NO_FAILURE = { error_status: null, retryable: false, retry_after_seconds: null } as const;

/**
 * Whether a failure may pass if tried again. A platform's answer says so by its status (or its
 * own error code); anything else (a tool's own error, an MCP error, a timeout) is retried as
 * it always was.
 */
const isRateLimited = (error: unknown): error is HubError => error instanceof HubError && error.code === "rate_limited";

function classifyFailure(error: unknown, signal: AbortSignal): Pick<ToolResult, "error_status" | "retryable" | "retry_after_seconds"> {
  // Held back by the connection's rate governor: as if the platform had answered 429.
  if (isRateLimited(error) && !signal.aborted) return { error_status: 429, retryable: true, retry_after_seconds: error.hints.retryAfterSeconds ?? null };
  if (!(error instanceof PlatformError) || signal.aborted) return { error_status: null, retryable: true, retry_after_seconds: null };
  return { error_status: error.status, retryable: error.retryable, retry_after_seconds: error.retryAfterSeconds ?? null };
}

function describeFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted)
    return signal.reason instanceof Error && signal.reason.name === "TimeoutError" ? "The tool call timed out." : "The tool call was cancelled.";
  if (error instanceof Error) return error.message.slice(0, 2000);
  return String(error).slice(0, 2000);
}
