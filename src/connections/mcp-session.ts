import { DurableObject } from "cloudflare:workers";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { loadConfig } from "../core/config";
import type { Runtime } from "../core/context";
import type { ProgressUpdate } from "../core/tool-context";
import type { Env } from "../env";
import { addressPolicyFor } from "../net/address-policy";
import { McpError, type McpSessionHandle, callToolOn, openMcpSession, translate } from "./mcp-client";
import type { McpConfig } from "./platforms/mcp";

/** A session nobody has used for this long is ended (on the server too). */
const IDLE_MS = 5 * 60_000;

export interface McpCallHooks {
  onProgress?: (update: ProgressUpdate) => void;
  onLog?: (level: string, message: string) => void;
}

/** Errors cross the RPC boundary as data: a thrown error would lose whether credentials were refused. */
export type McpCallOutcome = { ok: true; result: CallToolResult } | { ok: false; message: string; unauthorized: boolean };

/**
 * One MCP session kept open per connection (and per version of its settings: the object's name
 * holds a fingerprint of them), so a tool call costs one request to the server instead of four
 * (initialize, initialized, call, terminate). The session lives in memory only; the settings
 * arrive with each call and are never stored. Concurrent calls share the session: the SDK client
 * numbers its requests, so ids never repeat. A session the server has forgotten is opened again
 * once, and a session left idle is ended by the alarm.
 */
export class McpSession extends DurableObject<Env> {
  private session?: Promise<McpSessionHandle>;
  /** The session once open; what `forget` compares with. */
  private current?: McpSessionHandle;
  /** The server speaks only HTTP+SSE: each call gets a session of its own, as its stream cannot be shared. */
  private legacy = false;
  private calls = new Map<string, { controller: AbortController; onLog?: McpCallHooks["onLog"] }>();
  private lastUsed = 0;
  private idleAlarmSet = false;

  async call(config: McpConfig, request: { callId: string; name: string; args: Record<string, unknown> }, hooks: McpCallHooks): Promise<McpCallOutcome> {
    const controller = new AbortController();
    this.calls.set(request.callId, { controller, onLog: hooks.onLog });
    const onProgress = hooks.onProgress
      ? (update: ProgressUpdate) => {
          // The hook runs in the caller; a caller that has gone away is no reason to fail the call.
          Promise.resolve(hooks.onProgress?.(update)).catch(() => undefined);
        }
      : undefined;
    try {
      const result = await this.withSession(config, (handle) =>
        callToolOn(handle.client, request.name, request.args, { signal: controller.signal, onProgress }),
      );
      return { ok: true, result };
    } catch (error) {
      const failure = translate(error);
      return { ok: false, message: failure.message, unauthorized: failure.unauthorized };
    } finally {
      this.calls.delete(request.callId);
      this.lastUsed = Date.now();
      await this.keepIdleAlarm();
    }
  }

  /** Cancels a call in flight: the server gets `notifications/cancelled` and the call answers with an error. */
  cancel(callId: string): void {
    this.calls.get(callId)?.controller.abort(new McpError("The call was cancelled."));
  }

  async alarm(): Promise<void> {
    this.idleAlarmSet = false;
    if (this.calls.size === 0 && Date.now() - this.lastUsed >= IDLE_MS) {
      if (this.current) this.forget(this.current);
      return;
    }
    await this.keepIdleAlarm();
  }

  private async withSession<T>(config: McpConfig, work: (handle: McpSessionHandle) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const { handle, shared } = await this.open(config);
      try {
        return await work(handle);
      } catch (error) {
        // Any other failure (a tool error, a timeout, a cancellation, a server that is down) leaves
        // the session as it is: a server that restarts answers the next call with "gone".
        if (shared && sessionGone(error)) {
          this.forget(handle);
          // The server refused the request before running it: safe to send once more on a new session.
          if (attempt === 1) continue;
        }
        throw error;
      } finally {
        if (!shared) await handle.end();
      }
    }
  }

  private async open(config: McpConfig): Promise<{ handle: McpSessionHandle; shared: boolean }> {
    const policy = addressPolicyFor(loadConfig(this.env));
    const onLog = (level: string, message: string) => {
      // MCP ties log messages to the session, not to a request: every call in flight hears them.
      for (const { onLog } of this.calls.values()) Promise.resolve(onLog?.(level, message)).catch(() => undefined);
    };
    if (this.legacy) return { handle: await openMcpSession(config, { policy, onLog }), shared: false };
    this.session ??= openMcpSession(config, { policy, onLog });
    const opening = this.session;
    let handle: McpSessionHandle;
    try {
      handle = await opening;
    } catch (error) {
      if (this.session === opening) this.session = undefined;
      throw error;
    }
    if (handle.kept) {
      if (this.session === opening && this.current !== handle) {
        this.current = handle;
        // Closed under us (the transport gave up): the next call opens a new session.
        handle.client.onclose = () => this.release(handle);
      }
      return { handle, shared: true };
    }
    // Discovered that the server speaks only HTTP+SSE: from now on, a session per call.
    this.legacy = true;
    if (this.session === opening) this.session = undefined;
    await handle.end();
    return { handle: await openMcpSession(config, { policy, onLog }), shared: false };
  }

  /** Drops a session that failed (at once, so the next call opens a new one) and ends it. */
  private forget(handle: McpSessionHandle) {
    this.release(handle);
    void handle.end();
  }

  private release(handle: McpSessionHandle) {
    if (this.current !== handle) return;
    this.current = undefined;
    this.session = undefined;
  }

  /** One alarm at a time, not one storage write per call. */
  private async keepIdleAlarm() {
    if (this.idleAlarmSet || !this.session) return;
    this.idleAlarmSet = true;
    await this.ctx.storage.setAlarm(Math.max(Date.now(), this.lastUsed) + IDLE_MS);
  }
}

/** The server no longer knows our session (MCP says 404; some servers answer 400). */
const sessionGone = (error: unknown) => error instanceof StreamableHTTPError && (error.code === 404 || error.code === 400);

/** The name of a connection's session object: a change of its settings (a new token) starts a new session. */
export async function mcpSessionName(connectionId: number, config: McpConfig): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(config)));
  const fingerprint = [...new Uint8Array(digest).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${connectionId}:${fingerprint}`;
}

/**
 * Calls a tool of an MCP connection through its kept session. Aborting `signal` (a cancelled
 * stream, a cancelled run, the deadline) answers at once and cancels the call on the server.
 */
export async function callMcpTool(
  runtime: Pick<Runtime, "bindings" | "waitUntil">,
  connectionId: number,
  config: McpConfig,
  name: string,
  args: Record<string, unknown>,
  options: McpCallHooks & { signal?: AbortSignal },
): Promise<CallToolResult> {
  const sessions = runtime.bindings.MCP_SESSIONS;
  const session = sessions.get(sessions.idFromName(await mcpSessionName(connectionId, config)));
  const callId = crypto.randomUUID();
  const signal = options.signal ?? new AbortController().signal;
  if (signal.aborted) throw new McpError("The call was cancelled.");
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      // A caller that went away (a closed stream) may do no more I/O of its own: the cancel is
      // sent as work that outlives it.
      runtime.waitUntil(session.cancel(callId).catch(() => undefined));
      reject(new McpError("The call was cancelled."));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const answer = session.call(config, { callId, name, args }, { onProgress: options.onProgress, onLog: options.onLog });
    const outcome = (await Promise.race([answer, aborted])) as McpCallOutcome;
    if (!outcome.ok) throw new McpError(outcome.message, outcome.unauthorized);
    return outcome.result;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
