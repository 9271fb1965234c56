import { createDb, type Db } from "../db/client";
import type { Env } from "../env";
import { loadConfig, type Config } from "./config";
import type { Principal } from "./principal";
import type { Role } from "./roles";
import type { Scope } from "./scopes";
import type { SecretBox } from "./secret-box";
import { secretBoxFor } from "./secrets";

/** The bindings services use besides the database: Durable Objects, the queue, Workers AI. */
export type Bindings = Pick<
  Env,
  "CONVERSATIONS" | "AGENTS" | "RATE_LIMITER" | "MCP_SESSIONS" | "CONNECTION_TOKENS" | "CONNECTION_GOVERNORS" | "WORKFLOW_RUNS" | "AI"
>;

/**
 * What the deployment gives every piece of work, whoever asked for it: storage, parsed settings,
 * the credential vault and bindings. Built once per request, queue message, alarm or DO call.
 */
export interface Runtime {
  db: Db;
  config: Config;
  /** The vault for connection credentials and webhook secrets; fails closed without keys. */
  secrets(): Promise<SecretBox>;
  bindings: Bindings;
  /** Correlates logs and problems with the request (or message) that caused them. */
  requestId: string;
  /** Work that may finish after the answer has gone (audit records, last-used stamps). */
  waitUntil(work: Promise<unknown>): void;
}

/** Who acts: a person through one of their credentials. */
export interface Credential {
  /** Stable id, used for rate limits and audit records: `key_12`, `grant_…`. */
  id: string;
  /** api_key, session (login JWT), oauth (a token issued to an app), or delegated (work a credential started earlier: a run, an agent). */
  kind: Principal["kind"] | "delegated";
  /** The OAuth app acting for the user, if any. */
  clientId: string | null;
  /** The one workspace the credential may act in (an API key bound to it), else null. */
  workspaceId?: number | null;
}

/**
 * The one argument every service takes first: `(ctx, input)`. Services are transport-neutral:
 * REST routes, the queue consumer, Durable Objects (and the MCP server) build one and call the
 * same functions, so each rule lives in one place.
 */
export interface ServiceContext extends Runtime {
  /**
   * Where the work is done (DESIGN §6.4): the account that owns everything the call reads and
   * writes (every table's user_id), and the caller's role in it. A person's own account is their
   * personal workspace, where they are the owner.
   */
  workspace: ActingWorkspace;
  /** The person acting. For delegated work (a run, an agent's schedule) the workspace itself. */
  actor: { id: number };
  credential: Credential;
  scopes: readonly Scope[];
}

export interface ActingWorkspace {
  id: number;
  role: Role;
  /** The person's own account, not a team workspace. */
  personal: boolean;
}

/** A person's own account, where they are the owner. */
export const personalWorkspace = (userId: number): ActingWorkspace => ({ id: userId, role: "owner", personal: true });

/**
 * The credential of work a team workspace does on its own: agents and runs a member set going,
 * after that member left (workspaces/hand-over.ts). It is never revoked while the workspace lasts.
 */
export const WORKSPACE_CREDENTIAL = "workspace";

/** Scopes of work a credential started before (a queued run, an agent's schedule): it may read and run, as it was allowed to when it started. */
export const DELEGATED_SCOPES: readonly Scope[] = ["data:read", "workflow:execute"];

export function runtimeFor(env: Env, options: { requestId?: string; waitUntil?: (work: Promise<unknown>) => void } = {}): Runtime {
  const config = loadConfig(env);
  return {
    db: createDb(env.DB),
    config,
    secrets: () => secretBoxFor(config),
    bindings: env,
    requestId: options.requestId ?? crypto.randomUUID(),
    // Without an execution context (a Durable Object call), work is awaited by whoever holds it.
    waitUntil: options.waitUntil ?? ((work) => void work.catch(() => undefined)),
  };
}

/** A context for a caller who presented a credential. */
export function contextForPrincipal(runtime: Runtime, principal: Principal, workspace: ActingWorkspace): ServiceContext {
  return {
    ...runtime,
    workspace,
    actor: { id: principal.userId },
    credential: { id: principal.credentialId, kind: principal.kind, clientId: principal.clientId, workspaceId: principal.workspaceId },
    scopes: principal.scopes,
  };
}

/**
 * A context for work a credential started earlier: an execution, an agent's run, a conversation
 * turn. It acts as the workspace that owns the work (`ownerId`, the rows' user_id), whoever
 * started it, so a member's agents keep running after they leave.
 */
export function delegatedContext(runtime: Runtime, ownerId: number, credentialId: string): ServiceContext {
  return {
    ...runtime,
    workspace: { id: ownerId, role: "editor", personal: false },
    actor: { id: ownerId },
    credential: { id: credentialId, kind: "delegated", clientId: null },
    scopes: DELEGATED_SCOPES,
  };
}
