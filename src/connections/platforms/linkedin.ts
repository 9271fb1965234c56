import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { oauthConfigFields } from "./oauth-spec";
import { PlatformError, type PlatformClient, type PlatformFailure, baseUrlField, definePlatform, platformTool } from "./types";

type LinkedInConfig = {
  base_url?: string;
  api_version?: string;
  /** Set for each call from the connection's OAuth tokens. */
  access_token?: string;
};
type UserInfo = { sub?: string; name?: string; given_name?: string; family_name?: string; email?: string; email_verified?: boolean; picture?: string };

// The versioned REST API (learn.microsoft.com/en-us/linkedin/marketing/versioning): every /rest
// call names a LinkedIn-Version (YYYYMM), each supported for at least a year, and Rest.li 2.0
// (X-Restli-Protocol-Version), whose URNs go into paths URL-encoded. The default is a recent
// version; a connection may pin another in `api_version` when this one is sunset.
const VERSION = "202610";
const restHeaders = (config: LinkedInConfig) => ({ "LinkedIn-Version": config.api_version ?? VERSION, "X-Restli-Protocol-Version": "2.0.0" });

/** A member (urn:li:person:<sub of userinfo>) or a company page (urn:li:organization:<id>). */
const AuthorUrn = z
  .string()
  .regex(/^urn:li:(person|organization):[A-Za-z0-9_-]{1,100}$/, "urn:li:person:<id> or urn:li:organization:<id>.")
  .describe(
    "Who posts: default the connected member (get_userinfo's person_urn); a company page's urn:li:organization:<id> needs the w_organization_social scope.",
  );
const PostUrn = z.string().regex(/^urn:li:(share|ugcPost):\d{1,30}$/, "A post's URN, as create_post answers it: urn:li:share:<id> or urn:li:ugcPost:<id>.");
// "commentary": at most 3,000 characters (learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api).
const Commentary = z.string().max(3000).describe("The post's text, as written (the hub escapes LinkedIn's reserved characters).");
// Posts API "visibility": PUBLIC, CONNECTIONS (members only), LOGGED_IN.
const Visibility = z.enum(["PUBLIC", "CONNECTIONS", "LOGGED_IN"]).default("PUBLIC");

/**
 * Commentary is "little text" (learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/little-text-format):
 * | { } @ [ ] ( ) < > # \ * _ ~ are markup, and an unescaped one cuts or garbles the post. Plain
 * text is sent escaped, so it reads as it was written.
 */
const RESERVED = new Set("|{}@[]()<>#\\*_~");
export function littleText(value: string): string {
  let escaped = "";
  for (const char of value) escaped += RESERVED.has(char) ? `\\${char}` : char;
  return escaped;
}

/** Rest.li wraps the service's exception: "com.linkedin.….BadRequestResponseException: Content is a duplicate of urn:li:share:7…". */
function serviceMessage(message: string | undefined): string | undefined {
  if (!message?.startsWith("com.linkedin.")) return message;
  const at = message.indexOf("Exception: ");
  return at < 0 ? message : message.slice(at + "Exception: ".length);
}

/** Seconds to the next midnight UTC, when LinkedIn's daily limits reset (learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits). */
function untilMidnightUtc(now = Date.now()): number {
  const day = 24 * 3600 * 1000;
  return Math.max(1, Math.ceil((Math.floor(now / day + 1) * day - now) / 1000));
}

/**
 * LinkedIn's error body (learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling):
 * `{status, serviceErrorCode, code, message}`, and for Rest.li validation failures
 * `{errorDetailType, message, errorDetails: {inputErrors: [{description, input, code}]}, status}`
 * (422 DUPLICATE_POST: "Content is a duplicate of urn:li:share:…"). A 401 is the token's
 * (EXPIRED_ACCESS_TOKEN, REVOKED_ACCESS_TOKEN, INVALID_ACCESS_TOKEN, EMPTY_ACCESS_TOKEN); the
 * daily limits answer 429 with no Retry-After and reset at midnight UTC.
 */
export function readLinkedInError(status: number, body: any): PlatformFailure | undefined {
  if (status < 400 || !body || typeof body !== "object") return undefined;
  const inputErrors: any[] = Array.isArray(body.errorDetails?.inputErrors) ? body.errorDetails.inputErrors.slice(0, 3) : [];
  const code =
    text(body.code, 100) ?? text(inputErrors[0]?.code, 100) ?? (typeof body.serviceErrorCode === "number" ? String(body.serviceErrorCode) : undefined);
  const details = inputErrors
    .map((e) => {
      const field = text(e?.input?.inputPath?.fieldPath, 100);
      const description = text(e?.description, 200);
      return description && field ? `${field}: ${description}` : description;
    })
    .filter((d): d is string => Boolean(d));
  const main = serviceMessage(text(body.message, 500));
  let message = [main, ...details.filter((d) => !main?.includes(d))].filter(Boolean).join("; ") || code || "";
  if (code === "NONEXISTENT_VERSION" || code === "VERSION_MISSING")
    message += " (set the connection's api_version to a LinkedIn-Version that is active, YYYYMM)";
  if (status === 403 && code === "ACCESS_DENIED")
    message += " (posting as a company page needs the w_organization_social scope and an admin or content role on the page)";
  return {
    message,
    code,
    authFailure: status === 401 ? (code === "EXPIRED_ACCESS_TOKEN" ? "expired" : "error") : null,
    retryAfterSeconds: status === 429 && /\bDAY\b/.test(message) ? untilMidnightUtc() : undefined,
  };
}

async function userInfo(client: PlatformClient<LinkedInConfig>): Promise<UserInfo> {
  return client.request<UserInfo>({ method: "GET", path: "/v2/userinfo" });
}

/** The connected member's URN: urn:li:person:<sub> ("Sign In with LinkedIn using OpenID Connect"). */
async function memberUrn(client: PlatformClient<LinkedInConfig>): Promise<string> {
  const me = await userInfo(client);
  if (!me.sub)
    throw new PlatformError("LinkedIn's userinfo did not name the member (no sub); reconnect with the openid scope.", 502, undefined, { retryable: false });
  return `urn:li:person:${me.sub}`;
}

/**
 * POST /rest/posts (learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api#create-a-post):
 * a published post in the main feed; LinkedIn answers 201 with no body and the post's URN in
 * the x-restli-id header.
 */
async function publish(
  client: PlatformClient<LinkedInConfig>,
  args: { author?: string; commentary?: string; visibility: string },
  content?: Record<string, unknown>,
) {
  const author = args.author ?? (await memberUrn(client));
  const answer = await client.request<{ headers: Record<string, string | null> }>({
    method: "POST",
    path: "/rest/posts",
    headers: restHeaders(client.config),
    responseHeaders: ["x-restli-id"],
    body: {
      author,
      commentary: littleText(args.commentary ?? ""),
      visibility: args.visibility,
      distribution: { feedDistribution: "MAIN_FEED", targetEntities: [], thirdPartyDistributionChannels: [] },
      ...(content ? { content } : {}),
      lifecycleState: "PUBLISHED",
      isReshareDisabledByAuthor: false,
    },
  });
  const id = answer.headers["x-restli-id"];
  if (!id) throw new PlatformError("LinkedIn created the post but did not say its id (no x-restli-id).", 502, undefined, { retryable: false });
  return { id, author, url: `https://www.linkedin.com/feed/update/${id}/` };
}

export const linkedin = definePlatform<LinkedInConfig>({
  id: "linkedin",
  name: "LinkedIn",
  description: "Post to LinkedIn as the connected member (or a company page they manage): text and article posts, deleted when needed (Connect with LinkedIn).",
  category: "social",
  authKind: "oauth2",
  config: z.object({
    base_url: baseUrlField,
    api_version: z
      .string()
      .regex(/^\d{6}$/, "YYYYMM")
      .optional()
      .meta({ description: `The LinkedIn-Version (YYYYMM) of /rest calls; default ${VERSION}. LinkedIn sunsets each version after about a year.` }),
    ...oauthConfigFields,
  }),
  secretFields: ["client_secret"],
  // learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow: the
  // authorization code flow, the client's secret in the token request's form; scopes from the
  // "Sign In with LinkedIn using OpenID Connect" and "Share on LinkedIn" products. Access tokens
  // last 60 days; LinkedIn issues refresh tokens only to some partners (then the hub renews them).
  oauth: {
    authorizeUrl: "https://www.linkedin.com/oauth/v2/authorization",
    tokenUrl: "https://www.linkedin.com/oauth/v2/accessToken",
    defaultScopes: ["openid", "profile", "email", "w_member_social"],
    tokenAuth: "client_secret_post",
    tokenField: "access_token",
    deploymentClient: true,
  },
  defaultBaseUrl: "https://api.linkedin.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  readError: readLinkedInError,
  async test(client) {
    const me = await userInfo(client);
    return `Connected as ${me.name ?? me.email ?? me.sub ?? "a LinkedIn member"}.`;
  },
  tools: [
    platformTool({
      action: "get_userinfo",
      effect: "read",
      title: "Get the LinkedIn member",
      description: "The connected member's id (sub), URN (urn:li:person:<sub>, a post's author), name and email (GET /v2/userinfo, OpenID Connect).",
      input: z.object({}),
      async run(client) {
        const me = await userInfo(client);
        return {
          sub: me.sub ?? null,
          person_urn: me.sub ? `urn:li:person:${me.sub}` : null,
          name: me.name ?? null,
          given_name: me.given_name ?? null,
          family_name: me.family_name ?? null,
          email: me.email ?? null,
          email_verified: me.email_verified ?? null,
          picture: me.picture ?? null,
        };
      },
    }),
    platformTool({
      action: "create_post",
      effect: "write",
      title: "Post on LinkedIn",
      description:
        "Publishes a text post in the main feed (POST /rest/posts), as the connected member unless `author` names a company page. Answers the post's URN (id) and its URL. LinkedIn refuses the same text twice in a row (422 DUPLICATE_POST).",
      input: z.object({ commentary: Commentary.min(1), author: AuthorUrn.optional(), visibility: Visibility }),
      run: (client, args) => publish(client, args),
    }),
    platformTool({
      action: "create_article_post",
      effect: "write",
      title: "Share a link on LinkedIn",
      description:
        "Publishes a post with an article (a link with its title and description, shown as a card; LinkedIn does not scrape the page) and optional text (POST /rest/posts, content.article).",
      input: z.object({
        source: z
          .string()
          .url()
          .max(2000)
          .regex(/^https?:\/\//i, "An http(s) URL.")
          .describe("The article's URL."),
        title: z.string().min(1).max(400),
        description: z.string().max(2000).optional(),
        commentary: Commentary.optional(),
        author: AuthorUrn.optional(),
        visibility: Visibility,
      }),
      run: (client, args) =>
        publish(client, args, {
          article: { source: args.source, title: args.title, ...(args.description !== undefined ? { description: args.description } : {}) },
        }),
    }),
    platformTool({
      action: "delete_post",
      effect: "destructive",
      title: "Delete a LinkedIn post",
      description: "Deletes a post by its URN (DELETE /rest/posts/{urn}); deleting one already gone succeeds too, as LinkedIn answers.",
      input: z.object({ post_urn: PostUrn }),
      async run(client, args) {
        // posts-api#delete-posts: the URN URL-encoded in the path; 204 No Content.
        await client.request({
          method: "DELETE",
          path: `/rest/posts/${encodeURIComponent(args.post_urn)}`,
          headers: { ...restHeaders(client.config), "X-RestLi-Method": "DELETE" },
        });
        return { id: args.post_urn, deleted: true };
      },
    }),
  ],
});
