import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { LoggingMessageNotificationSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AddressPolicy } from "../net/address-policy";
import { OutboundRefused, checkUrl, guardedFetch } from "../net/safe-fetch";
import type { McpConfig } from "./platforms/mcp";
import type { ProgressUpdate } from "../core/tool-context";

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

function headersOf(config: McpConfig): Record<string, string> {
  return { ...config.headers, ...(config.token ? { Authorization: `Bearer ${config.token}` } : {}) };
}

/** Largest MCP response body read, in bytes: one server must not exhaust the isolate's memory. */
const MAX_MCP_RESPONSE_BYTES = 8 * 1024 * 1024;
const MAX_LIST_PAGES = 50;

/**
 * Connects a fresh client. Each call gets its own session (initialize, work, terminate): a
 * session shared between clients would reuse JSON-RPC ids, which MCP forbids and which mixes up
 * the answers of concurrent calls.
 */
async function connect(config: McpConfig, options: McpCallOptions): Promise<{ client: Client; end: () => Promise<void> }> {
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
  const fetchImpl = guardedFetch(options.policy, MAX_MCP_RESPONSE_BYTES);
  const mode = config.transport ?? "auto";

  if (mode !== "sse") {
    const transport = new StreamableHTTPClientTransport(url, { requestInit, fetch: fetchImpl });
    try {
      await client.connect(transport, { signal: options.signal });
      return {
        client,
        end: async () => {
          // Ends the server-side session too, so servers do not pile up abandoned sessions.
          await transport.terminateSession().catch(() => undefined);
          await client.close().catch(() => undefined);
        },
      };
    } catch (error) {
      await client.close().catch(() => undefined);
      // Older servers speak only HTTP+SSE: they answer the streamable POST with a 4xx.
      const status = error instanceof StreamableHTTPError ? error.code : undefined;
      const fallback = mode === "auto" && status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403;
      if (!fallback) throw translate(error);
    }
  }
  const legacy = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  const transport = new SSEClientTransport(url, { requestInit, fetch: fetchImpl });
  try {
    await legacy.connect(transport, { signal: options.signal });
  } catch (error) {
    throw translate(error);
  }
  return { client: legacy, end: () => legacy.close().catch(() => undefined) };
}

/** Only an HTTP 401 or 403 from the server means our credentials were refused. */
function translate(error: unknown): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof OutboundRefused) return new McpError(error.message);
  const status = error instanceof StreamableHTTPError || error instanceof SseError ? error.code : undefined;
  if (status === 401 || status === 403) return new McpError(`The MCP server refused the credentials (HTTP ${status}).`, true);
  return new McpError(`MCP server error: ${error instanceof Error ? error.message : String(error)}`);
}

async function withClient<T>(config: McpConfig, options: McpCallOptions, work: (client: Client) => Promise<T>): Promise<T> {
  const { client, end } = await connect(config, options);
  try {
    return await work(client);
  } catch (error) {
    throw translate(error);
  } finally {
    await end();
  }
}

export async function listMcpTools(config: McpConfig, options: McpCallOptions): Promise<Tool[]> {
  return withClient(config, options, async (client) => {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const listed = await client.listTools(cursor ? { cursor } : undefined, { signal: options.signal });
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (!cursor || tools.length >= 1000) break;
    }
    return tools.slice(0, 1000);
  });
}

export async function callMcpTool(config: McpConfig, name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
  return withClient(config, options, async (client) => {
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
