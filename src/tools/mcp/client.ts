import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { LoggingMessageNotificationSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AddressPolicy } from "../../net/address-policy";
import { OutboundRefused, checkUrl } from "../../net/safe-fetch";
import type { McpConfig } from "../../connections/platforms/mcp";
import type { ProgressUpdate } from "../types";

const CLIENT_INFO = { name: "agent-automation-hub", version: "1.0.0" };
const CALL_TIMEOUT_MS = 120_000;

/** A failure talking to an MCP server; `unauthorized` when the server refused our credentials. */
export class McpError extends Error {
  constructor(
    message: string,
    readonly unauthorized = false,
  ) {
    super(message);
  }
}

export interface McpCallOptions {
  policy: AddressPolicy;
  signal?: AbortSignal;
  onProgress?: (update: ProgressUpdate) => void;
  onLog?: (level: string, message: string) => void;
}

/**
 * Streamable HTTP sessions are remembered per connection (within this isolate), so a tool call
 * after the first skips the initialize handshake. A session the server forgot is replaced.
 */
const sessions = new Map<string, { sessionId: string; protocolVersion?: string }>();

function headersOf(config: McpConfig): Record<string, string> {
  return { ...config.headers, ...(config.token ? { Authorization: `Bearer ${config.token}` } : {}) };
}

/** Every request the SDK makes passes the outbound address policy first. */
function guardedFetch(policy: AddressPolicy): typeof fetch {
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    checkUrl(url, policy);
    return fetch(input, init);
  };
}

async function connect(sessionKey: string, config: McpConfig, options: McpCallOptions): Promise<Client> {
  const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  if (options.onLog) {
    const onLog = options.onLog;
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      const data = notification.params.data;
      onLog(notification.params.level, typeof data === "string" ? data : JSON.stringify(data));
    });
  }
  const url = new URL(checkUrl(config.url, options.policy));
  const requestInit = { headers: headersOf(config) };
  const fetchImpl = guardedFetch(options.policy);
  const mode = config.transport ?? "auto";

  if (mode !== "sse") {
    const remembered = sessions.get(sessionKey);
    if (remembered) {
      const transport = new StreamableHTTPClientTransport(url, { requestInit, fetch: fetchImpl, sessionId: remembered.sessionId });
      await client.connect(transport);
      if (remembered.protocolVersion) transport.setProtocolVersion(remembered.protocolVersion);
      return client;
    }
    try {
      const transport = new StreamableHTTPClientTransport(url, { requestInit, fetch: fetchImpl });
      await client.connect(transport, { signal: options.signal });
      if (transport.sessionId) sessions.set(sessionKey, { sessionId: transport.sessionId, protocolVersion: transport.protocolVersion });
      return client;
    } catch (error) {
      // Older servers speak only HTTP+SSE: they answer the streamable POST with 4xx.
      const fallback = mode === "auto" && error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500 && error.code !== 401 && error.code !== 403;
      if (!fallback) throw translate(error);
    }
  }
  const transport = new SSEClientTransport(url, { requestInit, eventSourceInit: { fetch: (u, i) => fetchImpl(u, { ...i, headers: { ...(i?.headers as Record<string, string>), ...headersOf(config) } }) }, fetch: fetchImpl });
  try {
    await client.connect(transport, { signal: options.signal });
  } catch (error) {
    throw translate(error);
  }
  return client;
}

function translate(error: unknown): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof OutboundRefused) return new McpError(error.message);
  if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403)) {
    return new McpError(`The MCP server refused the credentials (HTTP ${error.code}).`, true);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new McpError(`MCP server error: ${message}`, /\b401\b|unauthori[sz]ed/i.test(message));
}

/** Runs `work` with a connected client, retrying once on a fresh session if the remembered one expired. */
async function withClient<T>(sessionKey: string, config: McpConfig, options: McpCallOptions, work: (client: Client) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const hadSession = sessions.has(sessionKey);
    const client = await connect(sessionKey, config, options);
    try {
      return await work(client);
    } catch (error) {
      const expired = error instanceof StreamableHTTPError && (error.code === 404 || error.code === 400);
      if (hadSession && expired && attempt === 0) {
        sessions.delete(sessionKey);
        continue;
      }
      throw translate(error);
    } finally {
      // Closing ends the transport's streams but keeps the server-side session for the next call.
      await client.close().catch(() => undefined);
    }
  }
}

export async function listMcpTools(sessionKey: string, config: McpConfig, options: McpCallOptions): Promise<Tool[]> {
  return withClient(sessionKey, config, options, async (client) => {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { signal: options.signal });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && tools.length < 1000);
    return tools;
  });
}

export async function callMcpTool(
  sessionKey: string,
  config: McpConfig,
  name: string,
  args: Record<string, unknown>,
  options: McpCallOptions,
): Promise<CallToolResult> {
  return withClient(sessionKey, config, options, async (client) => {
    const result = await client.callTool({ name, arguments: args }, undefined, {
      signal: options.signal,
      timeout: CALL_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress: options.onProgress
        ? (progress) => options.onProgress!({ progress: progress.progress, total: progress.total, message: progress.message })
        : undefined,
    });
    return result as CallToolResult;
  });
}
