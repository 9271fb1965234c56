import { z } from "@hono/zod-openapi";
import { baseUrlField, definePlatform, platformTool } from "./types";

type OAuth2Config = {
  authorize_url: string;
  token_url: string;
  client_id: string;
  client_secret?: string;
  scopes?: string[];
  base_url: string;
  token_auth?: "client_secret_post" | "client_secret_basic";
  /** Set for each call from the connection's OAuth tokens. */
  access_token?: string;
};

/**
 * Any API behind OAuth 2.0 (authorization code with PKCE): the person registers an app with the
 * provider (redirect URI `<hub origin>/connections/oauth/callback`) and gives its endpoints and
 * client here. Calls send the access token as a bearer token; it is refreshed as it runs out.
 */
export const oauth2 = definePlatform<OAuth2Config>({
  id: "oauth2",
  name: "OAuth 2.0 API",
  description:
    "Any JSON HTTP API that authorizes with OAuth 2.0: give its authorization and token endpoints and your app's client; calls carry a token that is kept fresh.",
  category: "developer",
  authKind: "oauth2",
  config: z.object({
    authorize_url: z.string().url().max(2000).meta({ description: "The provider's authorization endpoint." }),
    token_url: z.string().url().max(2000).meta({ description: "The provider's token endpoint." }),
    client_id: z.string().min(1).max(500).meta({ description: "Your app's client id at the provider." }),
    client_secret: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .meta({ description: "Your app's client secret (none for a public client).", writeOnly: true, "x-secret": true }),
    scopes: z.array(z.string().min(1).max(200)).max(50).optional().meta({ description: "Scopes to ask for." }),
    base_url: baseUrlField.unwrap().meta({ description: "The API's root, e.g. https://api.example.com/v1: where calls go." }),
    token_auth: z
      .enum(["client_secret_post", "client_secret_basic"])
      .optional()
      .meta({ description: "How the client authenticates at the token endpoint (default client_secret_post)." }),
  }),
  secretFields: ["client_secret"],
  oauth: { defaultScopes: [], tokenField: "access_token", deploymentClient: false },
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  tools: [
    platformTool({
      action: "request",
      // Any method: as with an MCP tool that says nothing, a call that may change something is a write.
      effect: "write",
      title: "Call the OAuth 2.0 API",
      description: "Sends a request to a path under the connection's base URL with its access token, and returns the JSON (or text) answer.",
      input: z.object({
        method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).default("GET"),
        path: z.string().regex(/^\//, "Start with /").max(2000),
        query: z.record(z.string().max(200), z.union([z.string().max(2000), z.number(), z.boolean()])).optional(),
        body: z.unknown().optional(),
      }),
      async run(client, args) {
        return { body: await client.request({ method: args.method, path: args.path, query: args.query, body: args.body }) };
      },
    }),
  ],
});
