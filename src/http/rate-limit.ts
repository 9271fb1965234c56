import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { Config } from "../core/config";
import type { ServiceContext } from "../core/context";
import type { AppEnv } from "./app-env";
import { HubError } from "../core/errors";
import type { CounterSpec, RateLimitResult, RateLimiter } from "./rate-limiter";

export const WINDOW_SECONDS = 60;

/**
 * Counts a hit against counters of one subject (`user:12`, `addr:203.0.113.7`), all kept in that
 * subject's RateLimiter object, so one round trip checks them all. Counter names are
 * `<policy>` or `<policy>:<key>`; the policy part names them in the response headers.
 *
 * In front of the object sits an in-isolate allowance (`IsolateAllowances`): the object grants
 * hits in small leases that this isolate then spends without a round trip. The object never
 * grants more than a limit, so a limit is never exceeded. Leases start at one hit and double
 * (up to 5 % of the limit) only while an isolate keeps spending them within the window; hits
 * leased but unspent when the window ends are lost, so a caller spread over many busy isolates
 * may be refused up to 5 % of the limit per isolate early, and sees `RateLimit` remaining as
 * this isolate knows it.
 */
export async function consumeRateLimits(
  limiter: DurableObjectNamespace<RateLimiter>,
  subject: string,
  counters: CounterSpec[],
  cost = 1,
): Promise<RateLimitResult[]> {
  return (await take(limiter, subject, counters, cost)).results;
}

/** A hit that may be given back: `giveBack` undoes it, once, if its window has not ended. */
export interface ReturnableHit {
  results: RateLimitResult[];
  giveBack(): Promise<void>;
}

/**
 * One hit, like `consumeRateLimits`, that the caller can give back when what it guarded turns out
 * not to count (a sign-in that succeeds). The hit goes back where it came from: to this isolate's
 * allowance if it was spent from it (no round trip), else to the object. Either way the object has
 * granted at least as many hits as were kept, so a limit is still never exceeded.
 */
export async function consumeReturnable(limiter: DurableObjectNamespace<RateLimiter>, subject: string, counters: CounterSpec[]): Promise<ReturnableHit> {
  const charged = await take(limiter, subject, counters, 1);
  let returned = exhaustedOf(charged.results) !== undefined;
  return {
    results: charged.results,
    giveBack: async () => {
      if (returned) return;
      returned = true;
      if (charged.fromIsolate && allowances.giveBack(charged.key, charged.windowStart, 1)) return;
      const stub = limiter.get(limiter.idFromName(subject));
      await stub.giveBack(
        counters.map((c) => c.name),
        WINDOW_SECONDS,
        charged.windowStart,
        1,
      );
    },
  };
}

async function take(limiter: DurableObjectNamespace<RateLimiter>, subject: string, counters: CounterSpec[], cost: number) {
  const key = `${subject}|${counters.map((c) => `${c.name}=${c.limit}`).join(",")}`;
  for (;;) {
    const local = allowances.spend(key, cost);
    if (local) return { key, results: local.results, windowStart: local.windowStart, fromIsolate: true };
    // One lease at a time per key: requests arriving together wait for it and spend from it,
    // instead of each taking a lease of its own (a burst would otherwise lease more than it uses).
    const pending = leasing.get(key);
    if (!pending) break;
    await pending.catch(() => undefined);
  }
  // A read (cost 0) only looks: it never takes a lease, so it spends nothing.
  const want = cost === 0 ? 0 : allowances.nextLeaseSize(key, cost, Math.min(...counters.map((c) => c.limit)));
  const stub = limiter.get(limiter.idFromName(subject));
  const lease = Promise.resolve(stub.lease(counters, WINDOW_SECONDS, cost, want));
  leasing.set(key, lease);
  try {
    const { granted, results, windowStart } = await lease;
    allowances.keep(key, granted - cost, results, windowStart);
    return { key, results: allowances.report(key) ?? results, windowStart, fromIsolate: false };
  } finally {
    if (leasing.get(key) === lease) leasing.delete(key);
  }
}

/** Leases being asked for, per key (see `consumeRateLimits`). */
const leasing = new Map<string, Promise<unknown>>();

/** Hits this isolate was granted and has not spent yet, per subject and counter set. */
class IsolateAllowances {
  private entries = new Map<string, { tokens: number; lease: number; expiresAt: number; windowStart: number; results: RateLimitResult[] }>();

  /** Spends `cost` from the allowance (a read, cost 0, needs one left); undefined when it cannot. */
  spend(key: string, cost: number): { results: RateLimitResult[]; windowStart: number } | undefined {
    const entry = this.entries.get(key);
    if (!entry || Date.now() >= entry.expiresAt || entry.tokens < Math.max(cost, 1)) return undefined;
    entry.tokens -= cost;
    // Allowed whatever the last lease said: a lease refused after hits were given back keeps them.
    return { results: this.report(key)!.map((r) => ({ ...r, allowed: true })), windowStart: entry.windowStart };
  }

  /** Puts spent hits back, if the allowance they came from is still this window's; false when it is not. */
  giveBack(key: string, windowStart: number, cost: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || Date.now() >= entry.expiresAt || entry.windowStart !== windowStart) return false;
    entry.tokens += cost;
    return true;
  }

  nextLeaseSize(key: string, cost: number, smallestLimit: number): number {
    const entry = this.entries.get(key);
    const ceiling = Math.max(1, Math.floor(smallestLimit / 20));
    const next = entry && Date.now() < entry.expiresAt ? Math.min(ceiling, entry.lease * 2) : 1;
    return Math.max(cost, next);
  }

  keep(key: string, tokens: number, results: RateLimitResult[], windowStart: number) {
    if (this.entries.size >= MAX_ALLOWANCES) this.entries.clear();
    const now = Date.now();
    const current = this.entries.get(key);
    const live = current && now < current.expiresAt && current.windowStart === windowStart ? current : undefined;
    // Granted hits belong to the object's current window: spend them before it ends (a second early).
    const resetSeconds = Math.min(...results.map((r) => r.resetSeconds));
    this.entries.set(key, {
      // Concurrent leases of one isolate add up: each was charged.
      tokens: Math.max(0, tokens) + (live?.tokens ?? 0),
      lease: Math.max(1, tokens + 1, live?.lease ?? 0),
      expiresAt: now + Math.max(0, resetSeconds - 1) * 1000,
      windowStart,
      results,
    });
  }

  /** The counters as this isolate sees them: the object's count after the lease, plus what is left of it. */
  report(key: string): RateLimitResult[] | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const secondsLeft = Math.max(1, Math.ceil((entry.expiresAt - Date.now()) / 1000) + 1);
    return entry.results.map((r) => ({ ...r, remaining: Math.min(r.limit, r.remaining + entry.tokens), resetSeconds: secondsLeft }));
  }
}

/** Distinct subjects an isolate keeps allowances for before starting over (a bound on memory). */
const MAX_ALLOWANCES = 10_000;
const allowances = new IsolateAllowances();

const policyOf = (result: RateLimitResult) => result.name.split(":")[0]!;

/** IETF RateLimit / RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers), one item per policy. */
export function rateLimitHeaders(results: RateLimitResult[]): Record<string, string> {
  const { policy, state } = rateLimitFields(results);
  return { "RateLimit-Policy": policy, RateLimit: state };
}

function rateLimitFields(results: RateLimitResult[]) {
  return {
    policy: results.map((r) => `"${policyOf(r)}";q=${r.limit};w=${WINDOW_SECONDS}`).join(", "),
    state: results.map((r) => `"${policyOf(r)}";r=${r.remaining};t=${r.resetSeconds}`).join(", "),
  };
}

/** The first exhausted counter, if any. */
export const exhaustedOf = (results: RateLimitResult[]) => results.find((r) => !r.allowed);

export function rateLimited(results: RateLimitResult[], what: Record<string, string> = {}): HubError {
  const hit = exhaustedOf(results) ?? results[0]!;
  const policy = policyOf(hit);
  return new HubError("rate_limited", `Rate limit of ${hit.limit} ${what[policy] ?? policy} per minute exceeded; retry in ${hit.resetSeconds} s.`, {
    retryAfterSeconds: hit.resetSeconds,
    rateLimit: rateLimitFields(results),
  });
}

/**
 * Spends `cost` of the caller's tool-call limit (TOOL_RATE_LIMIT_PER_MINUTE); 429 when it is used
 * up. Here, below the features, because more than tool calls spend it: a catalog refresh and a
 * connection test reach outside like a call does.
 */
export async function chargeToolCalls(ctx: Pick<ServiceContext, "bindings" | "config" | "workspace">, cost = 1): Promise<RateLimitResult[]> {
  const limits = await consumeRateLimits(
    ctx.bindings.RATE_LIMITER,
    `user:${ctx.workspace.id}`,
    [{ name: "tools", limit: ctx.config.limits.toolCallsPerMinute }],
    cost,
  );
  if (exhaustedOf(limits)) throw rateLimited(limits, { tools: "tool calls" });
  return limits;
}

const DESCRIPTIONS = { requests: "requests for this credential", user: "requests for this account", auth: "sign-in attempts from this address" };

function limitBy(pick: (c: Context<AppEnv>) => { subject: string; counters: CounterSpec[] }) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const { subject, counters } = pick(c);
    const results = await consumeRateLimits(c.get("runtime").bindings.RATE_LIMITER, subject, counters);
    if (exhaustedOf(results)) throw rateLimited(results, DESCRIPTIONS);
    await next();
    // Appended: a route may already have reported a limit of its own (tool calls).
    for (const [name, value] of Object.entries(rateLimitHeaders(results))) c.header(name, value, { append: true });
  });
}

/** Every authenticated request counts against its credential and against its user. */
export const perCredentialLimit = limitBy((c) => {
  const principal = c.get("principal");
  const limits = c.get("config").limits;
  return {
    subject: `user:${principal.userId}`,
    counters: [
      { name: `requests:${principal.credentialId}`, limit: limits.requestsPerMinute },
      { name: "user", limit: limits.userRequestsPerMinute },
    ],
  };
});

/** The bucket of callers whose address cannot be trusted: they share one limit. */
export const UNVERIFIED_ADDRESS = "unverified";

/**
 * The client address per-address limits count against. `CF-Connecting-IP` is set by Cloudflare's
 * edge, but anyone can send it to a hub that is not behind Cloudflare (a local `npm start`, a
 * server reached directly), and rotating it would dodge every limit. So it is trusted only for
 * requests that came through Cloudflare (`request.cf` is present) on production, or where the
 * deployment says a proxy of its own sets it. Everyone else shares one bucket, which still
 * limits: workerd gives a Worker no socket peer address to use instead.
 */
export function clientAddress(c: Context<AppEnv>): string {
  return trustedClientAddress(c.req.raw, c.get("config"));
}

export function trustedClientAddress(request: Request, config: Pick<Config, "environment" | "trustClientIpHeader">): string {
  const header = request.headers.get("CF-Connecting-IP")?.trim();
  const viaCloudflare = config.environment === "production" && (request as Request & { cf?: unknown }).cf !== undefined;
  const trusted = config.trustClientIpHeader === "always" || (config.trustClientIpHeader === "auto" && viaCloudflare);
  return trusted && header ? header : UNVERIFIED_ADDRESS;
}

/** Per client address: sign-in and registration, which have no credential yet. */
export const perAddressAuthLimit = limitBy((c) => ({
  subject: `addr:${clientAddress(c)}`,
  counters: [{ name: "auth", limit: c.get("config").limits.authAttemptsPerMinute }],
}));
