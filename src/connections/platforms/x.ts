import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { oauthConfigFields } from "./oauth-spec";
import { requestTool } from "./request-tool";
import { type PlatformClient, type PlatformFailure, baseUrlField, definePlatform, platformTool } from "./types";

type XConfig = {
  base_url?: string;
  /** Set for each call from the connection's OAuth tokens. */
  access_token?: string;
};
type User = { id: string; name?: string; username?: string; description?: string; public_metrics?: Record<string, number> };
type Post = {
  id: string;
  text?: string;
  created_at?: string;
  author_id?: string;
  conversation_id?: string;
  public_metrics?: { like_count?: number; retweet_count?: number; reply_count?: number; quote_count?: number };
};

// The X API v2 (docs.x.com/x-api): a user's OAuth 2.0 access token as a bearer, JSON in and out.
/** Post ids are snowflakes: decimal, up to 19 digits. */
const PostId = z.string().regex(/^\d{1,19}$/, "A post's numeric id (the number at the end of its x.com/<user>/status/<id> URL).");
const UserId = z.string().regex(/^\d{1,19}$/, "A user's numeric id (get_me's id).");
/** X's pagination tokens are short base-36 strings; passed through as the cursor. */
const Cursor = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,200}$/, "Pass the next_cursor of the previous page as it was given.")
  .describe("The previous page's next_cursor.");

/** "https://api.twitter.com/2/problems/resource-not-found" → "resource-not-found"; "about:blank" says nothing. */
function problemCode(type: unknown): string | undefined {
  const value = text(type, 200);
  if (!value || value === "about:blank") return undefined;
  return value.slice(value.lastIndexOf("/") + 1) || undefined;
}

/**
 * X's errors (docs.x.com/x-api/fundamentals/response-codes-and-errors): a problem
 * `{title, detail, type, status}` with the HTTP status (401 "Unauthorized", 403 "You are not
 * allowed to create a Tweet with duplicate content.", 400 invalid-request with `errors: [{message,
 * parameters}]`, 429 "Too Many Requests"), and, for lookups, 200 with `errors: [{title: "Not Found
 * Error", detail: "Could not find tweet with id: [1].", type: …/resource-not-found}]` and no data:
 * that one is a failure too, named by its title. A 429 carries x-rate-limit-* fields (the reset as
 * an epoch), which the connection's governor reads; X sends no Retry-After.
 */
export function readXError(status: number, body: any): PlatformFailure | undefined {
  if (!body || typeof body !== "object") return undefined;
  const errors: any[] = Array.isArray(body.errors) ? body.errors.slice(0, 3) : [];
  if (status < 400) {
    // Partial errors beside data (a withheld expansion) do not fail the call.
    if (body.data !== undefined || !errors.length) return undefined;
    const first = errors[0];
    return {
      message: text(first?.detail, 300) ?? text(first?.message, 300) ?? "",
      code: problemCode(first?.type),
      answer: text(first?.title, 60) ?? "an error",
    };
  }
  // An invalid request's detail is generic ("One or more parameters to your request was
  // invalid."); its errors name the parameter, so they follow the title instead.
  const details = errors.map((e) => text(e?.message, 200) ?? text(e?.detail, 200)).filter((m): m is string => Boolean(m));
  const main = text(body.detail, 300) ?? text(body.title, 100);
  const message = details.length ? `${text(body.title, 100) ?? main ?? "Error"}: ${details.join("; ")}` : (main ?? "");
  return {
    message,
    code: problemCode(body.type) ?? text(body.reason, 100) ?? text(body.title, 100),
    authFailure: status === 401 ? "error" : null,
  };
}

const post = (p: Post) => ({ id: p.id, text: p.text ?? null, created_at: p.created_at ?? null });

async function me(client: PlatformClient<XConfig>, fields?: string): Promise<User> {
  const answer = await client.request<{ data: User }>({ method: "GET", path: "/2/users/me", query: { "user.fields": fields } });
  return answer.data;
}

export const x = definePlatform<XConfig>({
  id: "x",
  name: "X",
  description: "Post to X (Twitter) as the connected account, reply and quote, read and delete its posts (Connect with X).",
  category: "social",
  authKind: "oauth2",
  config: z.object({ base_url: baseUrlField, ...oauthConfigFields }),
  secretFields: ["client_secret"],
  // docs.x.com/resources/fundamentals/authentication/oauth-2-0/authorization-code: authorization
  // code with PKCE; a confidential client authenticates at the token endpoint with HTTP Basic.
  // Access tokens last two hours; offline.access is what brings a refresh token.
  oauth: {
    authorizeUrl: "https://x.com/i/oauth2/authorize",
    tokenUrl: "https://api.x.com/2/oauth2/token",
    defaultScopes: ["tweet.read", "tweet.write", "users.read", "offline.access"],
    tokenAuth: "client_secret_basic",
    tokenField: "access_token",
    deploymentClient: true,
  },
  defaultBaseUrl: "https://api.x.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  readError: readXError,
  async test(client) {
    const user = await me(client);
    return `Connected as @${user.username ?? user.id}.`;
  },
  polls: [{ title: "New post", action: "list_my_posts", arguments: { max_results: 20 }, items_path: "posts", id_path: "id" }],
  tools: [
    platformTool({
      action: "get_me",
      effect: "read",
      title: "Get the X account",
      description: "The connected account's id, name, @username, bio and counts (GET /2/users/me).",
      input: z.object({}),
      async run(client) {
        const user = await me(client, "description,public_metrics");
        return {
          id: user.id,
          name: user.name ?? null,
          username: user.username ?? null,
          description: user.description ?? null,
          followers_count: user.public_metrics?.followers_count ?? null,
          following_count: user.public_metrics?.following_count ?? null,
          post_count: user.public_metrics?.tweet_count ?? null,
        };
      },
    }),
    requestTool({
      action: "create_post",
      effect: "write",
      title: "Post on X",
      description:
        "Publishes a post (POST /2/tweets), optionally as a reply or quoting another post. X allows 280 characters (weighted: URLs count 23, emoji 2) on standard accounts and more on Premium ones; X refuses the same text twice (403 duplicate content).",
      input: z.object({
        text: z.string().min(1).max(25_000),
        in_reply_to_post_id: PostId.optional().describe("The post this one replies to."),
        quote_post_id: PostId.optional().describe("The post this one quotes."),
        reply_settings: z.enum(["following", "mentionedUsers", "subscribers", "verified"]).optional().describe("Who may reply (default: everyone)."),
      }),
      method: "POST",
      path: "/2/tweets",
      // docs.x.com/x-api/posts/creation-of-a-post: {text, reply: {in_reply_to_tweet_id}, quote_tweet_id, reply_settings}.
      body: (args) => ({
        text: args.text,
        ...(args.in_reply_to_post_id ? { reply: { in_reply_to_tweet_id: args.in_reply_to_post_id } } : {}),
        ...(args.quote_post_id ? { quote_tweet_id: args.quote_post_id } : {}),
        ...(args.reply_settings ? { reply_settings: args.reply_settings } : {}),
      }),
      result: (a) => ({ id: a.data.id, text: a.data.text ?? null, url: `https://x.com/i/web/status/${a.data.id}` }),
    }),
    requestTool({
      action: "delete_post",
      effect: "destructive",
      title: "Delete a post on X",
      description: "Deletes one of the account's posts (DELETE /2/tweets/{id}); `deleted` says whether X deleted it.",
      input: z.object({ post_id: PostId }),
      method: "DELETE",
      path: "/2/tweets/{post_id}",
      result: (a, args) => ({ id: args.post_id, deleted: a?.data?.deleted === true }),
    }),
    platformTool({
      action: "list_my_posts",
      effect: "read",
      title: "List the account's posts",
      description:
        "The account's posts, newest first (GET /2/users/{id}/tweets), a page at a time: pass next_cursor as cursor (null: no more). Without user_id it looks the account up first (one more call).",
      input: z.object({
        user_id: UserId.optional().describe("The account's id (get_me); default: looked up."),
        max_results: z.number().int().min(5).max(100).default(10).describe("X's page size: 5 to 100."),
        cursor: Cursor.optional(),
        exclude: z
          .array(z.enum(["replies", "retweets"]))
          .max(2)
          .optional()
          .describe("Leave out replies and/or reposts."),
      }),
      async run(client, args) {
        const userId = args.user_id ?? (await me(client)).id;
        // docs.x.com/x-api/users/get-posts: max_results 5–100, pagination_token, meta.next_token.
        const page = await client.request<{ data?: Post[]; meta?: { next_token?: string } }>({
          method: "GET",
          path: `/2/users/${encodeURIComponent(userId)}/tweets`,
          query: {
            max_results: args.max_results,
            pagination_token: args.cursor,
            exclude: args.exclude?.length ? [...new Set(args.exclude)].join(",") : undefined,
            "tweet.fields": "created_at",
          },
        });
        return { user_id: userId, posts: (page.data ?? []).map(post), next_cursor: page.meta?.next_token ?? null };
      },
    }),
    requestTool({
      action: "get_post",
      effect: "read",
      title: "Get a post on X",
      description: "One post with its author, thread and counts (GET /2/tweets/{id}). A post that does not exist (or was deleted) is X's 'Not Found Error'.",
      input: z.object({ post_id: PostId }),
      method: "GET",
      path: "/2/tweets/{post_id}",
      query: () => ({ "tweet.fields": "created_at,author_id,conversation_id,public_metrics" }),
      result: (a) => {
        const p = a.data as Post;
        return {
          ...post(p),
          author_id: p.author_id ?? null,
          conversation_id: p.conversation_id ?? null,
          like_count: p.public_metrics?.like_count ?? null,
          repost_count: p.public_metrics?.retweet_count ?? null,
          reply_count: p.public_metrics?.reply_count ?? null,
          quote_count: p.public_metrics?.quote_count ?? null,
        };
      },
    }),
  ],
});
