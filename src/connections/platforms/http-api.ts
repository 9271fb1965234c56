import { z } from "@hono/zod-openapi";
import { baseUrlField, definePlatform, platformTool } from "./types";

type HttpConfig = { base_url: string; auth_header_name?: string; auth_header_value?: string; idempotency_header?: string };

/** Any HTTP API that authenticates with one header: the connection keeps the header secret. */
export const httpApi = definePlatform<HttpConfig>({
  id: "http",
  name: "HTTP API",
  description: "Any JSON HTTP API behind one authentication header (API key or bearer token), e.g. an internal service or a CRM without a native integration.",
  category: "developer",
  authKind: "api_key",
  config: z.object({
    base_url: baseUrlField.unwrap().meta({ description: "The API's root, e.g. https://api.example.com/v2." }),
    auth_header_name: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,100}$/)
      .default("Authorization")
      .optional(),
    auth_header_value: z.string().min(1).max(4096).optional().meta({ description: 'E.g. "Bearer sk_…" or an API key.', writeOnly: true, "x-secret": true }),
    idempotency_header: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,100}$/)
      .optional()
      .meta({
        description: "If the API honours idempotency keys: the header that takes one (e.g. Idempotency-Key). Workflow steps then send their key in it.",
      }),
  }),
  secretFields: ["auth_header_value"],
  authHeaders: (config) => (config.auth_header_value ? { [config.auth_header_name ?? "Authorization"]: config.auth_header_value } : {}),
  // An API of the person's own: only they know whether it takes a key, and in which header.
  idempotencyHeader: (config) => config.idempotency_header,
  tools: [
    platformTool({
      action: "call",
      // Any method: as with an MCP tool that says nothing, a call that may change something is a write.
      effect: "write",
      title: "Call the HTTP API",
      description: "Sends a request to a path under the connection's base URL with its authentication header, and returns the JSON (or text) answer.",
      input: z.object({
        method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).default("GET"),
        path: z.string().regex(/^\//, "Start with /").max(2000),
        query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
        body: z.unknown().optional(),
      }),
      async run(client, args) {
        return { body: await client.request({ method: args.method, path: args.path, query: args.query, body: args.body }) };
      },
    }),
  ],
});
