import { type OpenAPIHono, z } from "@hono/zod-openapi";
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

/** Served by a plain handler (RFC 7591 errors, not problem details); described here for the reference. */
export function describeClientRegistration(v1: OpenAPIHono<AppEnv, any, any>) {
  v1.openAPIRegistry.registerPath({
    method: "post",
    path: "/auth/register-client",
    tags: ["Authentication"],
    summary: "Register an MCP client (RFC 7591)",
    description:
      'Dynamic client registration for public clients (an MCP client on someone\'s machine): no secret is issued (`token_endpoint_auth_method` "none"), PKCE S256 is required at `/auth/authorize`, redirect URIs must be https or http to a loopback address, and the client acts only for a person who approves it. Scopes: `data:read`, `data:write`, `workflow:execute` (default `data:read workflow:execute`). Limited to 10 registrations a minute per address; a client nobody approved is removed a day after registering.',
    security: [],
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z.object({
              redirect_uris: z.array(z.string()).min(1).max(10),
              client_name: z.string().max(100).optional(),
              token_endpoint_auth_method: z.literal("none").optional(),
              grant_types: z.array(z.enum(["authorization_code", "refresh_token"])).optional(),
              response_types: z.array(z.literal("code")).optional(),
              scope: z.string().optional(),
            }),
          },
        },
      },
    },
    responses: {
      201: {
        description: "Registered",
        content: {
          "application/json": {
            schema: z.object({
              client_id: z.string(),
              client_id_issued_at: z.number().int(),
              client_name: z.string(),
              redirect_uris: z.array(z.string()),
              grant_types: z.array(z.string()),
              response_types: z.array(z.string()),
              token_endpoint_auth_method: z.literal("none"),
              scope: z.string(),
            }),
          },
        },
      },
      400: {
        description: "invalid_client_metadata or invalid_redirect_uri (RFC 7591 §3.2.2).",
        content: { "application/json": { schema: z.object({ error: z.string(), error_description: z.string() }) } },
      },
      429: { description: "Too many registrations from this address." },
    },
  });
}
