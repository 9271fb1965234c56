import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env";

export const API_VERSION = "1.0.0";

/**
 * Serves GET /v1/openapi.json, generated from the same zod schemas that validate requests, and
 * returns the builder so the /docs page renders the very same document.
 */
export function registerOpenApi(v1: OpenAPIHono<AppEnv, any, any>) {
  v1.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description:
      "An API key (`ahk_live_…` on production, `ahk_test_…` on sandbox), an OAuth 2.0 access token, or the JWT from `POST /v1/auth/login`. The scope each operation needs is listed in its security requirement.",
  });
  const build = (origin: string) =>
    v1.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "Agent Automation Hub API",
        version: API_VERSION,
        description:
          "Build autonomous AI agents and marketing automations. Errors are RFC 9457 problem details (`application/problem+json`) with a stable `code`; see /docs for the list.",
      },
      servers: [{ url: origin }],
      security: [{ bearerAuth: [] }],
    });
  v1.get("/openapi.json", (c) => c.json(build(new URL(c.req.url).origin)));
  return build;
}
