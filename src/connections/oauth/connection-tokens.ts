import { DurableObject } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { type Runtime, runtimeFor } from "../../core/context";
import { recordAlertEvent } from "../../core/alert-events";
import { HubError } from "../../core/errors";
import { type Connection, connections } from "../../db/schema";
import type { Env } from "../../env";
import { hashSecret } from "../../lib/crypto";
import { loggableError } from "../../lib/safe-log";
import { addressPolicyFor } from "../../net/address-policy";
import { openConfig } from "../config-codec";
import { openClientState, refreshMcpTokens } from "../mcp-oauth";
import { GrantRefused, GrantUnavailable, type IssuedTokens, refreshGrant } from "../oauth-protocol";
import { oauthSettingsFor } from "../oauth-settings";
import {
  REFRESH_AHEAD_MS,
  type StoredTokens,
  type TokenChange,
  type TokenOutcome,
  type TokenRequest,
  expiredMessage,
  openTokens,
  pendingMessage,
  sealTokens,
} from "../oauth-tokens";
import { findPlatform } from "../platforms";
import { loadCustomPlatform } from "../custom/resolve";
import { platformFor } from "../platforms/oauth-spec";

/** Set, in the object's storage, to the hash of the refresh token being sent, until its answer is stored. */
const IN_FLIGHT = "refreshing";

/**
 * A refresh's answer, kept in the object's storage until D1 has it: the provider has already
 * retired the refresh token that was sent, so if the D1 write fails the answer must not be lost.
 * `over` is the sealed tokens it replaces; it is written only over those.
 */
export const PENDING_WRITE = "pending-write";
export interface PendingWrite {
  over: string;
  change: TokenChange;
}

/**
 * One per OAuth connection (named by its uid): the only place its tokens are refreshed, so a
 * refresh is single-flight across the whole deployment. Requests are served one after another:
 * of twenty calls that find the token running out, the first refreshes and the others read what
 * it stored. The tokens themselves live in D1 (sealed), where calls read them without asking
 * this object while they have more than a minute left.
 *
 * A refresh token is sent at most once per answer (one whose request got no answer at all, a
 * timeout, is tried again on a later call). A rotated one is stored in the same write as the new
 * access token, and only over the tokens the refresh started from (a reconnect meanwhile wins).
 * Before sending, the token's hash is noted in this object's storage and cleared once the answer
 * is handled: finding it still there (the object was restarted mid-refresh, so the answer is
 * lost) marks the connection expired rather than sending the token again. The answer is kept
 * in this object's storage until D1 has it, so a failed D1 write loses no rotated token. A refusal of the
 * refresh (invalid_grant or any other OAuth error) marks it expired with a message telling the
 * person to reconnect; a provider that cannot be reached (or answers 5xx) is tried again on a
 * later call.
 */
export class ConnectionTokens extends DurableObject<Env> {
  private queue: Promise<unknown> = Promise.resolve();

  token(request: TokenRequest): Promise<TokenOutcome> {
    const turn = this.queue.then(() => this.serve(request));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async serve(request: TokenRequest): Promise<TokenOutcome> {
    const runtime = runtimeFor(this.env);
    const row = await runtime.db
      .select()
      .from(connections)
      .where(and(eq(connections.id, request.connectionId), eq(connections.userId, request.userId)))
      .get();
    if (!row || row.uid !== request.uid || row.authMode !== "oauth2") {
      return { ok: false, status: "error", message: "The connection does not exist, or is not connected with OAuth.", retryable: false };
    }
    const pending = await this.ctx.storage.get<PendingWrite>(PENDING_WRITE);
    if (pending) {
      // A refresh answered, but its write to D1 failed: write it now (only over the tokens it
      // replaces: a reconnect meanwhile wins), then serve from what is stored.
      if (pending.over === row.oauthTokens) await this.store(runtime, row.id, pending);
      await this.ctx.storage.delete(PENDING_WRITE);
      return this.serve(request);
    }
    const platformName = findPlatform(row.platform)?.name ?? row.platform;
    if (row.status === "expired") {
      const message = row.errorMessage ?? expiredMessage(platformName, row.id, "expired");
      return { ok: false, status: "expired", message, retryable: false, change: { status: "expired", errorMessage: message } };
    }
    const box = await runtime.secrets();
    const tokens = await openTokens(box, row.uid, row.oauthTokens);
    if (!tokens) {
      if (row.status === "pending" || !row.oauthTokens) return { ok: false, status: "pending", message: pendingMessage(row.id), retryable: false };
      return this.expire(runtime, row, platformName, "the stored tokens can no longer be decrypted");
    }
    const stored: TokenOutcome = { ok: true, accessToken: tokens.access_token, change: columnsOf(row) };
    const expiresAt = row.oauthExpiresAt?.getTime();
    const refused = request.refused !== undefined && request.refused === tokens.access_token;
    const runningOut = expiresAt !== undefined && expiresAt - Date.now() <= REFRESH_AHEAD_MS;
    // Refreshed by an earlier request already, or the refused token was an older one.
    if (!refused && !runningOut) return stored;
    if (!tokens.refresh_token) {
      // Nothing to refresh with: the token serves until it runs out; then only a new authorization helps.
      if (!refused && expiresAt !== undefined && expiresAt > Date.now()) return stored;
      return this.expire(runtime, row, platformName, "the access token ran out and there is no refresh token");
    }
    return this.refresh(runtime, row, tokens as StoredTokens & { refresh_token: string }, platformName, request);
  }

  private async refresh(
    runtime: Runtime,
    row: Connection,
    tokens: StoredTokens & { refresh_token: string },
    platformName: string,
    request: TokenRequest,
  ): Promise<TokenOutcome> {
    const marker = await hashSecret(tokens.refresh_token);
    if ((await this.ctx.storage.get<string>(IN_FLIGHT)) === marker) {
      await this.ctx.storage.delete(IN_FLIGHT);
      return this.expire(runtime, row, platformName, "a refresh was interrupted before its answer was stored, and a refresh token is never sent twice");
    }
    await this.ctx.storage.put(IN_FLIGHT, marker);
    let issued: IssuedTokens;
    try {
      issued = await this.grant(runtime, row, tokens.refresh_token);
    } catch (error) {
      // The provider answered, or the request never got an answer: either way it is handled here.
      await this.ctx.storage.delete(IN_FLIGHT);
      if (error instanceof GrantRefused) return this.expire(runtime, row, platformName, error.message);
      if (error instanceof GrantUnavailable) return { ok: false, status: "error", message: `${platformName}: ${error.message}`, retryable: true };
      console.error(JSON.stringify({ level: "error", message: "token refresh failed", connection_id: row.id, error: loggableError(error) }));
      return { ok: false, status: "error", message: `${platformName}: the token could not be refreshed.`, retryable: true };
    }
    const box = await runtime.secrets();
    const change: TokenChange = {
      status: "active",
      errorMessage: null,
      // The rotated refresh token (or the same one, where the provider does not rotate) with its access token: one value, one write.
      oauthTokens: await sealTokens(box, row.uid, {
        access_token: issued.accessToken,
        refresh_token: issued.refreshToken ?? tokens.refresh_token,
        token_type: issued.tokenType,
      }),
      oauthExpiresAt: issued.expiresAt,
      oauthScopes: issued.scopes ?? row.oauthScopes,
      oauthRefreshedAt: new Date(),
    };
    // The answer goes into this object's storage with the marker cleared, in one write, before D1
    // is asked: a failed D1 write then leaves it here for the next call to store (see serve).
    const pending: PendingWrite = { over: row.oauthTokens!, change };
    await this.ctx.storage.transaction(async (txn) => {
      await txn.put(PENDING_WRITE, pending);
      await txn.delete(IN_FLIGHT);
    });
    const written = await this.store(runtime, row.id, pending);
    await this.ctx.storage.delete(PENDING_WRITE);
    // Reconnected (or edited) while the refresh was under way: what is stored now wins.
    if (!written) return this.serve({ ...request, refused: undefined });
    return { ok: true, accessToken: issued.accessToken, change };
  }

  /** Writes a refresh's tokens over the ones it replaces; false when those are no longer stored. */
  private async store(runtime: Runtime, connectionId: number, pending: PendingWrite): Promise<boolean> {
    const written = await runtime.db
      .update(connections)
      .set({ ...pending.change, updatedAt: new Date() })
      .where(and(eq(connections.id, connectionId), eq(connections.oauthTokens, pending.over)))
      .returning({ id: connections.id });
    return written.length > 0;
  }

  private async grant(runtime: Runtime, row: Connection, refreshToken: string): Promise<IssuedTokens> {
    // A custom platform (DESIGN §5) is the connection owner's: loaded from D1 with them.
    const platform = findPlatform(row.platform) ?? (await loadCustomPlatform({ db: runtime.db, workspace: { id: row.userId } }, row.platform));
    if (!platform) throw new GrantRefused("unknown_platform", `no platform "${row.platform}"`);
    const box = await runtime.secrets();
    const policy = addressPolicyFor(runtime.config);
    if (platform.id === "mcp") return refreshMcpTokens(await openClientState(box, row.uid, row.oauthClient), refreshToken, policy);
    const config = await openConfig(platformFor(platform, "oauth2"), row.config, row.uid, box);
    let settings: ReturnType<typeof oauthSettingsFor>;
    try {
      settings = oauthSettingsFor(platform, config, runtime.config.oauthClients, row.oauthScopes ?? undefined);
    } catch (error) {
      if (error instanceof HubError) throw new GrantRefused("invalid_client", error.errors?.map((e) => e.message).join(" ") || error.message);
      throw error;
    }
    return refreshGrant(settings, refreshToken, policy);
  }

  /** The connection is expired, with what to do about it; only over the tokens it had (a reconnect meanwhile wins). */
  private async expire(runtime: Runtime, row: Connection, platformName: string, reason: string): Promise<TokenOutcome> {
    const message = expiredMessage(platformName, row.id, reason);
    const change: TokenChange = { status: "expired", errorMessage: message, oauthTokens: null, oauthExpiresAt: null };
    const unchanged = row.oauthTokens ? eq(connections.oauthTokens, row.oauthTokens) : undefined;
    const expired = await runtime.db
      .update(connections)
      .set({ ...change, updatedAt: new Date() })
      .where(and(eq(connections.id, row.id), unchanged))
      .returning({ id: connections.id });
    // The owner's alerts (DESIGN §6.5) hear of it: only a reconnect brings it back.
    if (expired.length > 0) await recordAlertEvent(runtime.db, { userId: row.userId, kind: "connection_expired", subject: String(row.id), summary: message });
    return { ok: false, status: "expired", message, retryable: false, change };
  }
}

/** The token columns as stored, for the caller's copy of the connection. */
function columnsOf(row: Connection): TokenChange {
  return {
    status: row.status,
    errorMessage: row.errorMessage,
    oauthTokens: row.oauthTokens,
    oauthExpiresAt: row.oauthExpiresAt,
    oauthScopes: row.oauthScopes,
    oauthRefreshedAt: row.oauthRefreshedAt,
  };
}
