import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { ServiceContext } from "../../core/context";
import type { Db } from "../../db/client";
import { oneTimeFlashes } from "../../db/schema";
import type { AppEnv } from "../../http/app-env";
import { randomToken } from "../../lib/crypto";

/**
 * A new agent's webhook secret carried across the redirect after deploying, so the agent's page
 * (at its own address) shows it exactly once: a short-lived HttpOnly cookie scoped to that page,
 * sealed and bound to the person and the agent, and deleted by the page that shows it. Deleting
 * it only asks the browser to forget it, so each flash also has an id that its first showing
 * records in D1: the same cookie sent again (a copy of it, a replay) shows nothing. It may carry
 * why the agent's schedule was not set, shown on that page with the secret.
 */
const COOKIE = "ahk_new_agent_secret";
const LIFETIME_SECONDS = 120;

const pathOf = (agentId: string) => `/app/agents/${agentId}`;
const sealContext = (userId: number, agentId: string) => `dashboard:user:${userId}:agent:${agentId}:new_webhook_secret`;
const secure = (c: Context<AppEnv>) => new URL(c.req.url).protocol === "https:";

export interface DeployFlash {
  secret: string;
  /** Why the schedule asked for at deploy was not set, if it was not. */
  scheduleError?: string;
}

/** What the agent's page gets from a flash: the secret the first time, a note that it was shown after that. */
export type TakenFlash = DeployFlash | { alreadyShown: true };

export async function flashWebhookSecret(c: Context<AppEnv>, ctx: ServiceContext, agentId: string, flash: DeployFlash): Promise<void> {
  const payload = JSON.stringify({ ...flash, id: randomToken(16), expires: Date.now() + LIFETIME_SECONDS * 1000 });
  const sealed = await (await ctx.secrets()).seal(payload, sealContext(ctx.actor.id, agentId));
  setCookie(c, COOKIE, sealed, { httpOnly: true, sameSite: "Lax", path: pathOf(agentId), secure: secure(c), maxAge: LIFETIME_SECONDS });
}

/** What was flashed for this agent, if anything, removing it so a reload (or a replay) does not show it again. */
export async function takeWebhookSecret(c: Context<AppEnv>, ctx: ServiceContext, agentId: string): Promise<TakenFlash | undefined> {
  const sealed = getCookie(c, COOKIE);
  if (!sealed) return undefined;
  deleteCookie(c, COOKIE, { path: pathOf(agentId), secure: secure(c) });
  let flash: { id: unknown; secret: unknown; expires: unknown; scheduleError: unknown };
  try {
    flash = JSON.parse(await (await ctx.secrets()).open(sealed, sealContext(ctx.actor.id, agentId)));
  } catch {
    // Another person's or another agent's cookie, or a tampered one: nothing to show.
    return undefined;
  }
  const { id, secret, expires, scheduleError } = flash;
  if (typeof id !== "string" || typeof secret !== "string" || typeof expires !== "number" || expires <= Date.now()) return undefined;
  if (!(await firstShowing(ctx.db, id, new Date(expires)))) return { alreadyShown: true };
  return typeof scheduleError === "string" ? { secret, scheduleError } : { secret };
}

/** Records that the flash `id` was shown; false when it already was (one insert decides, even for requests at the same moment). */
async function firstShowing(db: Db, id: string, expiresAt: Date): Promise<boolean> {
  const inserted = await db.insert(oneTimeFlashes).values({ id, expiresAt }).onConflictDoNothing().returning({ id: oneTimeFlashes.id });
  return inserted.length > 0;
}
