import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { Config } from "../core/config";
import type { AppEnv } from "./app-env";
import { HubError } from "../core/errors";
import type { CounterSpec, RateLimitResult, RateLimiter } from "./rate-limiter";

export const WINDOW_SECONDS = 60;

/**
 * Counts a hit against counters of one subject (`user:12`, `addr:203.0.113.7`), all kept in that
 * subject's RateLimiter object, so one round trip checks them all. Counter names are
 * `<policy>` or `<policy>:<key>`; the policy part names them in the response headers.
 */
export async function consumeRateLimits(
  limiter: DurableObjectNamespace<RateLimiter>,
  subject: string,
  counters: CounterSpec[],
  cost = 1,
): Promise<RateLimitResult[]> {
  const stub = limiter.get(limiter.idFromName(subject));
  return stub.hit(counters, WINDOW_SECONDS, cost);
}

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
