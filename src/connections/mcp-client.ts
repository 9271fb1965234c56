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
 * Most tools kept of one server's list, and most bytes of JSON they may take: paging stops at
 * either, so a list never holds more than one page beyond them. The bytes also keep the list
 * within one D1 row (2 MB at most), where it is cached.
 */
const MAX_LISTED_TOOLS = 1000;
const MAX_LISTED_BYTES = 1536 * 1024;

/** A connected client; `kept` when its session may serve later calls (streamable HTTP). */
export interface McpSessionHandle {
  client: Client;
  kept: boolean;
  /** Ends the session on the server too, so servers do not pile up abandoned sessions. */
  end: () => Promise<void>;
}

/**
 * Connects a fresh client: streamable HTTP, or the older HTTP+SSE for servers that speak only
 * that. A streamable session can be kept for many calls (see `McpSession`): the client numbers
 * its JSON-RPC requests, so concurrent calls on one session never share an id. `onLog` receives
 * the server's log notifications, which MCP does not tie to a request.
 */
export async function openMcpSession(
  config: McpConfig,
  options: { policy: AddressPolicy; signal?: AbortSignal; onLog?: (level: string, message: string) => void },
): Promise<McpSessionHandle> {
  const newClient = () => {
    const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    const onLog = options.onLog;
    if (onLog)
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        const data = notification.params.data;
        onLog(notification.params.level, typeof data === "string" ? data : JSON.stringify(data));
      });
    return client;
  };
  const url = new URL(checkUrl(config.url, options.policy));
  const requestInit = { headers: headersOf(config) };
  const fetchImpl = guardedFetch(options.policy, MAX_MCP_RESPONSE_BYTES);
  const mode = config.transport ?? "auto";

  if (mode !== "sse") {
    const client = newClient();
    // No standalone GET stream: the hub asks and reads answers, and needs no messages the server
    // sends unasked; an open stream would also hold a connection for as long as the session lives.
    // A GET that resumes an interrupted answer (Last-Event-ID) goes through.
    const withoutStandaloneStream: typeof fetch = (input, init) =>
      init?.method === "GET" && !new Headers(init.headers).has("last-event-id") ? Promise.resolve(new Response(null, { status: 405 })) : fetchImpl(input, init);
    const transport = new StreamableHTTPClientTransport(url, { requestInit, fetch: withoutStandaloneStream });
    try {
      await client.connect(transport, { signal: options.signal });
      return {
        client,
        kept: true,
        end: async () => {
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
  const legacy = newClient();
  const transport = new SSEClientTransport(url, { requestInit, fetch: fetchImpl });
  try {
    await legacy.connect(transport, { signal: options.signal });
  } catch (error) {
    throw translate(error);
  }
  return { client: legacy, kept: false, end: () => legacy.close().catch(() => undefined) };
}

/** Only an HTTP 401 or 403 from the server means our credentials were refused. */
export function translate(error: unknown): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof OutboundRefused) return new McpError(error.message);
  const status = error instanceof StreamableHTTPError || error instanceof SseError ? error.code : undefined;
  if (status === 401 || status === 403) return new McpError(`The MCP server refused the credentials (HTTP ${status}).`, true);
  return new McpError(`MCP server error: ${error instanceof Error ? error.message : String(error)}`);
}

/** Lists a server's tools on a session of its own (a connection test, a cache refresh). */
export async function listMcpTools(config: McpConfig, options: McpCallOptions): Promise<Tool[]> {
  const { client, end } = await openMcpSession(config, options);
  try {
    const tools: Tool[] = [];
    let bytes = 0;
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const listed = await client.listTools(cursor ? { cursor } : undefined, { signal: options.signal });
      for (const tool of listed.tools) {
        const size = utf8Length(JSON.stringify(tool));
        // A list cut short is still a list: the tools that fit are served.
        if (tools.length >= MAX_LISTED_TOOLS || bytes + size > MAX_LISTED_BYTES) return tools;
        tools.push(tool);
        bytes += size;
      }
      cursor = listed.nextCursor;
      if (!cursor || tools.length >= MAX_LISTED_TOOLS) break;
    }
    return tools;
  } catch (error) {
    throw translate(error);
  } finally {
    await end();
  }
}

/** The UTF-8 length of `text`, without encoding it. */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A surrogate pair (4 bytes) is two units of 2.
    bytes += unit < 0x80 ? 1 : unit < 0x800 || (unit >= 0xd800 && unit < 0xe000) ? 2 : 3;
  }
  return bytes;
}

/** One `tools/call` on an open session; aborting `signal` sends the server `notifications/cancelled`. */
export async function callToolOn(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: { signal?: AbortSignal; onProgress?: (update: ProgressUpdate) => void },
): Promise<CallToolResult> {
  const onProgress = options.onProgress;
  const result = await client.callTool({ name, arguments: args }, undefined, {
    signal: options.signal,
    timeout: CALL_TIMEOUT_MS,
    resetTimeoutOnProgress: true,
    onprogress: onProgress ? (progress) => onProgress({ progress: progress.progress, total: progress.total, message: progress.message }) : undefined,
  });
  return result as CallToolResult;
}
