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

/**
 * A session nobody has used for this long is ended (on the server too). Kept short of the time
 * after which an idle object may be evicted, which would leave the session open on the server.
 */
const IDLE_MS = 60_000;

export interface McpCallHooks {
  onProgress?: (update: ProgressUpdate) => void;
  onLog?: (level: string, message: string) => void;
}

/** Errors cross the RPC boundary as data: a thrown error would lose whether credentials were refused. */
export type McpCallOutcome = { ok: true; result: CallToolResult } | { ok: false; message: string; unauthorized: boolean };

/** The shared session, and how many calls are using it: a session being replaced ends when its last call does. */
interface KeptSession {
  handle: McpSessionHandle;
  users: number;
  retiring: boolean;
  /** The token the session was opened with: an OAuth connection's token changes when it is refreshed. */
  token: string | undefined;
}

/**
 * One MCP session kept open per connection (and per version of its settings: the object's name
 * changes when they are saved again), so a tool call costs one request to the server instead of
 * four (initialize, initialized, call, terminate). The session lives in memory only; the settings
 * arrive with each call and are never stored. Concurrent calls share the session: the SDK client
 * numbers its requests, so ids never repeat. A session the server has forgotten is opened again
 * once, and a session left idle is ended by the alarm.
 */
export class McpSession extends DurableObject<Env> {
  private current?: KeptSession;
  private opening?: Promise<McpSessionHandle>;
  private openingToken?: string;
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
      this.keepIdleAlarm();
    }
  }

  /** Cancels a call in flight: the server gets `notifications/cancelled` and the call answers with an error. */
  cancel(callId: string): void {
    this.calls.get(callId)?.controller.abort(new McpError("The call was cancelled."));
  }

  async alarm(): Promise<void> {
    this.idleAlarmSet = false;
    if (this.calls.size === 0 && Date.now() - this.lastUsed >= IDLE_MS) {
      if (this.current) this.retire(this.current);
      return;
    }
    this.keepIdleAlarm();
  }

  private async withSession<T>(config: McpConfig, work: (handle: McpSessionHandle) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      if (this.legacy) return this.onSessionOfItsOwn(config, work);
      const kept = await this.keptSession(config);
      if (!kept) return this.onSessionOfItsOwn(config, work);
      kept.users++;
      try {
        return await work(kept.handle);
      } catch (error) {
        // Any other failure (a tool error, a timeout, a cancellation, a server that is down) leaves
        // the session as it is: a server that restarts answers the next call with "gone".
        if (!sessionGone(error)) throw error;
        this.retire(kept);
        // The server refused the request before running it: safe to send once more on a new session.
        if (attempt > 1) throw error;
      } finally {
        kept.users--;
        if (kept.retiring && kept.users === 0) void kept.handle.end();
      }
    }
  }

  private async onSessionOfItsOwn<T>(config: McpConfig, work: (handle: McpSessionHandle) => Promise<T>): Promise<T> {
    const handle = await openMcpSession(config, this.sessionOptions());
    try {
      return await work(handle);
    } finally {
      await handle.end();
    }
  }

  /** The shared session, opened by the first caller that needs it; undefined for an HTTP+SSE server. */
  private async keptSession(config: McpConfig): Promise<KeptSession | undefined> {
    // A refreshed token: the session opened with the old one ends once its calls are done.
    if (this.current && this.current.token !== config.token) this.retire(this.current);
    if (this.current) return this.current;
    if (!this.opening) this.openingToken = config.token;
    this.opening ??= openMcpSession(config, this.sessionOptions()).finally(() => {
      this.opening = undefined;
    });
    const token = this.openingToken;
    const handle = await this.opening;
    if (!handle.kept) {
      // Discovered that the server speaks only HTTP+SSE: from now on, a session per call.
      this.legacy = true;
      await handle.end();
      return undefined;
    }
    // Another caller may have taken the same opening's session in the meantime.
    const taken = this.current as KeptSession | undefined;
    if (taken?.handle !== handle) {
      const kept: KeptSession = { handle, users: 0, retiring: false, token };
      this.current = kept;
      // Closed under us (the transport gave up): the next call opens a new session.
      handle.client.onclose = () => {
        if (this.current === kept) this.current = undefined;
      };
    }
    return this.current;
  }

  private sessionOptions() {
    return {
      policy: addressPolicyFor(loadConfig(this.env)),
      onLog: (level: string, message: string) => {
        // MCP ties log messages to the session, not to a request: every call in flight hears them.
        for (const { onLog } of this.calls.values()) Promise.resolve(onLog?.(level, message)).catch(() => undefined);
      },
    };
  }

  /** Stops handing out a session; it ends (on the server too) once no call is using it. */
  private retire(kept: KeptSession) {
    if (this.current === kept) this.current = undefined;
    kept.retiring = true;
    if (kept.users === 0) void kept.handle.end();
  }

  /** One alarm at a time, not one storage write per call; failing to set it never fails a call. */
  private keepIdleAlarm() {
    if (this.idleAlarmSet || !this.current) return;
    this.idleAlarmSet = true;
    this.ctx.waitUntil(
      this.ctx.storage.setAlarm(Math.max(Date.now(), this.lastUsed) + IDLE_MS).catch(() => {
        this.idleAlarmSet = false;
      }),
    );
  }
}

/**
 * The server no longer knows our session: MCP says 404; some servers (the reference server among
 * them) answer 400 and say so. Any other 400 is about the request and is not retried.
 */
const sessionGone = (error: unknown) => error instanceof StreamableHTTPError && (error.code === 404 || (error.code === 400 && /session/i.test(error.message)));

/**
 * The name of a connection's session object. The stored settings are encrypted with a fresh IV
 * each time they are saved, so a hash of the stored form changes with every change (a new token)
 * and reveals nothing of the settings.
 */
export async function mcpSessionName(connection: { id: number; config: object }): Promise<string> {
  const known = sessionNames.get(connection.config);
  if (known) return known;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(connection.config)));
  const fingerprint = [...new Uint8Array(digest).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("");
  const name = `${connection.id}:${fingerprint}`;
  sessionNames.set(connection.config, name);
  return name;
}

/** Names by the stored settings they were computed from (a connection kept in this isolate hashes once). */
const sessionNames = new WeakMap<object, string>();

/**
 * Calls a tool of an MCP connection through its kept session. Aborting `signal` (a cancelled
 * stream, a cancelled run, the deadline) answers at once and cancels the call on the server.
 */
export async function callMcpTool(
  runtime: Pick<Runtime, "bindings" | "waitUntil">,
  connection: { id: number; config: object },
  config: McpConfig,
  name: string,
  args: Record<string, unknown>,
  options: McpCallHooks & { signal?: AbortSignal },
): Promise<CallToolResult> {
  const sessions = runtime.bindings.MCP_SESSIONS;
  const session = sessions.get(sessions.idFromName(await mcpSessionName(connection)));
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
  const answer = session.call(config, { callId, name, args }, { onProgress: options.onProgress, onLog: options.onLog });
  try {
    const outcome = (await Promise.race([answer, aborted])) as McpCallOutcome;
    if (!outcome.ok) throw new McpError(outcome.message, outcome.unauthorized);
    return outcome.result;
  } catch (error) {
    if (error instanceof McpError) throw error;
    // The session object itself failed (reset, overloaded): an MCP failure like any other.
    throw new McpError(`MCP session failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    signal.removeEventListener("abort", onAbort);
    // Once cancelled, the object's late answer (or failure) is of no interest.
    answer.catch(() => undefined);
  }
}
