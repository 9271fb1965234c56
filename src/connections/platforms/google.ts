import { z } from "@hono/zod-openapi";
import { oauthConfigFields } from "./oauth-spec";
import { baseUrlField, definePlatform, platformTool } from "./types";

type GoogleConfig = { base_url?: string /** Set for each call from the connection's OAuth tokens. */; access_token?: string };
type UserInfo = { id?: string; email?: string; verified_email?: boolean; name?: string };

/**
 * A Google account, connected with OAuth only ("Connect with Google"). Google's APIs live on
 * several hosts; `base_url` is the root of the account ones (www.googleapis.com). Gmail and Sheets
 * tools build on the same connection and its scopes.
 */
export const google = definePlatform<GoogleConfig>({
  id: "google",
  name: "Google",
  description: "A Google account connected with OAuth (Connect with Google): the account's profile, and the token Gmail and Sheets tools use.",
  category: "productivity",
  authKind: "oauth2",
  config: z.object({ base_url: baseUrlField, ...oauthConfigFields }),
  secretFields: ["client_secret"],
  // developers.google.com/identity/protocols/oauth2/web-server: access_type=offline (and consent
  // asked again) is what makes Google issue a refresh token; access tokens last an hour.
  oauth: {
    authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    issuer: "https://accounts.google.com",
    defaultScopes: ["https://www.googleapis.com/auth/userinfo.email"],
    authorizeParams: { access_type: "offline", prompt: "consent", include_granted_scopes: "true" },
    tokenField: "access_token",
    deploymentClient: true,
  },
  defaultBaseUrl: "https://www.googleapis.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  async test(client) {
    const me = await client.request<UserInfo>({ method: "GET", path: "/oauth2/v2/userinfo" });
    return `Connected as ${me.email ?? me.id ?? "a Google account"}.`;
  },
  tools: [
    platformTool({
      action: "get_account",
      effect: "read",
      title: "Get the Google account",
      description: "The connected Google account's id, email address and name (the userinfo endpoint).",
      input: z.object({}),
      async run(client) {
        const me = await client.request<UserInfo>({ method: "GET", path: "/oauth2/v2/userinfo" });
        return { id: me.id ?? null, email: me.email ?? null, verified_email: me.verified_email ?? null, name: me.name ?? null };
      },
    }),
  ],
});
