import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { Env } from "../env";
import type { AppEnv } from "./app-env";
import { ApiError } from "./errors";
import type { RateLimitResult } from "./rate-limiter";

const WINDOW_SECONDS = 60;

export async function consumeRateLimit(env: Env, key: string, limit: number): Promise<RateLimitResult> {
  const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(key));
  return stub.hit(limit, WINDOW_SECONDS);
}

/** IETF RateLimit / RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers). */
export function rateLimitHeaders(policy: string, result: RateLimitResult): Record<string, string> {
  return {
    "RateLimit-Policy": `"${policy}";q=${result.limit};w=${WINDOW_SECONDS}`,
    RateLimit: `"${policy}";r=${result.remaining};t=${result.resetSeconds}`,
  };
}

export function rateLimited(policy: string, result: RateLimitResult, what: string): ApiError {
  return new ApiError("rate_limited", `Rate limit of ${result.limit} ${what} per minute exceeded; retry in ${result.resetSeconds} s.`, {
    headers: { ...rateLimitHeaders(policy, result), "Retry-After": String(result.resetSeconds) },
  });
}

/**
 * Counts a request against a key chosen per route; on success the headers go on the response,
 * over the limit it is a 429 with Retry-After.
 */
export function rateLimit(policy: string, pick: (c: Context<AppEnv>) => { key: string; limit: number }, what = "requests") {
  return createMiddleware<AppEnv>(async (c, next) => {
    const { key, limit } = pick(c);
    const result = await consumeRateLimit(c.env, `${policy}:${key}`, limit);
    if (!result.allowed) throw rateLimited(policy, result, what);
    await next();
    for (const [name, value] of Object.entries(rateLimitHeaders(policy, result))) c.header(name, value);
  });
}

/** Per credential: every authenticated request counts. */
export const perCredentialLimit = rateLimit("requests", (c) => ({
  key: c.get("principal").credentialId,
  limit: c.get("config").limits.requestsPerMinute,
}));

/** Per client address: sign-in, registration and token requests, which have no credential yet. */
export const perAddressAuthLimit = rateLimit(
  "auth",
  (c) => ({ key: c.req.header("CF-Connecting-IP") ?? "unknown", limit: c.get("config").limits.authAttemptsPerMinute }),
  "sign-in attempts",
);
