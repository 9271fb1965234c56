import { Hono } from "hono";
import type { AppEnv } from "../http/app-env";
import { clientAddress, consumeRateLimits, exhaustedOf, rateLimitHeaders } from "../http/rate-limit";
import { RegistrationError, registerPublicClient } from "./client-registration";

/** Registrations allowed per client address and minute. */
const REGISTRATIONS_PER_MINUTE = 10;

/** POST /v1/auth/register-client: RFC 7591 dynamic client registration (public clients). */
export const clientRegistration = new Hono<AppEnv>().post("/auth/register-client", async (c) => {
  const limits = await consumeRateLimits(c.get("runtime").bindings.RATE_LIMITER, `addr:${clientAddress(c)}`, [
    { name: "client_registrations", limit: REGISTRATIONS_PER_MINUTE },
  ]);
  const hit = exhaustedOf(limits);
  const headers = { "Cache-Control": "no-store", ...rateLimitHeaders(limits) };
  if (hit) {
    return c.json({ error: "slow_down", error_description: `Too many registrations; retry in ${hit.resetSeconds} s.` }, 429, {
      ...headers,
      "Retry-After": String(hit.resetSeconds),
    });
  }
  try {
    const body = await c.req.json().catch(() => {
      throw new RegistrationError("invalid_client_metadata", "The body must be a JSON object.");
    });
    return c.json(await registerPublicClient(c.get("db"), body), 201, headers);
  } catch (error) {
    if (!(error instanceof RegistrationError)) throw error;
    return c.json({ error: error.error, error_description: error.message }, 400, headers);
  }
});
