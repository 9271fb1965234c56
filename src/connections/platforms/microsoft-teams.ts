import { z } from "@hono/zod-openapi";
import { text } from "./failures";
import { oauthConfigFields } from "./oauth-spec";
import { requestTool } from "./request-tool";
import { PlatformError, type PlatformFailure, baseUrlField, definePlatform } from "./types";

type TeamsConfig = { tenant?: string; base_url?: string /** Set for each call from the connection's OAuth tokens. */; access_token?: string };

// Microsoft Teams through Microsoft Graph v1.0 (learn.microsoft.com/graph/api/resources/teams-api-overview):
// the signed-in person's delegated access token as a bearer, and the version in each path
// (https://graph.microsoft.com/v1.0/…), so a base_url override names only the host (a national cloud's).
const V = "/v1.0";

// The Microsoft identity platform's authorization code flow (learn.microsoft.com/entra/identity-platform/v2-oauth2-auth-code-flow):
// /{tenant}/oauth2/v2.0/authorize and /token. "common" takes any work or school (and personal)
// account; "organizations", a tenant's id or its domain keeps sign-in to work or school accounts,
// as Teams needs, or to one organization.
const LOGIN = "https://login.microsoftonline.com";
const Tenant = z
  .string()
  .max(253)
  .regex(
    /^(common|organizations|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+)$/,
    "common, organizations, your tenant's id or its domain (contoso.onmicrosoft.com).",
  );
const endpointsOf = (tenant: string) => ({
  authorizeUrl: `${LOGIN}/${encodeURIComponent(tenant)}/oauth2/v2.0/authorize`,
  tokenUrl: `${LOGIN}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`,
});

/** A team's id is its Microsoft 365 group's id, a GUID. */
const TeamId = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, "A team's id (a GUID), from list_joined_teams.");
/** "19:…@thread.tacv2", from list_channels. */
const ChannelId = z.string().regex(/^19:[^\s/\\?#]{1,200}$/, "A channel's id (19:…@thread.tacv2), from list_channels.");
const MessageId = z.string().regex(/^\d{1,25}$/, "A message's id, from list_channel_messages or send_channel_message.");
/** Teams takes messages of about 28 KB (learn.microsoft.com/microsoftteams/limits-specifications-teams). */
const Body = {
  content: z.string().min(1).max(28_000).describe("The message: HTML (<p>, <b>, <a href>…) or plain text, as content_type says."),
  content_type: z.enum(["html", "text"]).default("html"),
};

/**
 * Graph's error body: {error: {code, message, innerError: {date, request-id}}}
 * (learn.microsoft.com/graph/errors): InvalidAuthenticationToken with 401 is the token's fault;
 * Forbidden (a scope not granted, a team the person is not in) and NotFound are not.
 */
function readGraphError(status: number, body: any): PlatformFailure | undefined {
  const error = body?.error;
  if (status < 400 || !error || typeof error !== "object") return undefined;
  return { message: text(error.message, 400) ?? text(error.code, 100) ?? "", code: text(error.code, 100), authFailure: status === 401 ? "error" : null };
}

const message = (m: any) => ({
  id: m.id,
  reply_to_id: m.replyToId ?? null,
  message_type: m.messageType ?? null,
  created_at: m.createdDateTime ?? null,
  subject: m.subject ?? null,
  content_type: m.body?.contentType ?? null,
  content: m.body?.content ?? null,
  from: m.from?.user?.displayName ?? m.from?.application?.displayName ?? null,
  from_user_id: m.from?.user?.id ?? null,
  web_url: m.webUrl ?? null,
});
const sent = (m: any) => ({
  id: m.id,
  reply_to_id: m.replyToId ?? null,
  created_at: m.createdDateTime ?? null,
  team_id: m.channelIdentity?.teamId ?? null,
  channel_id: m.channelIdentity?.channelId ?? null,
  web_url: m.webUrl ?? null,
});

// Graph pages with @odata.nextLink, a whole URL (learn.microsoft.com/graph/paging). The cursor
// carries only its $skiptoken, base64url-encoded: the next call is built from the tool's own path,
// so no cursor can send the token to another host or path.
const Cursor = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,8000}$/, "Pass the next_cursor of the previous page as it was given.")
  .describe("The previous page's next_cursor.");

function cursorOf(nextLink: unknown): string | null {
  if (typeof nextLink !== "string") return null;
  let token: string | null = null;
  try {
    token = new URL(nextLink).searchParams.get("$skiptoken");
  } catch {
    return null;
  }
  if (!token) return null;
  const cursor = btoa(Array.from(new TextEncoder().encode(token), (b) => String.fromCharCode(b)).join(""))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
  // Far longer than Graph's tokens; a page the cursor cannot carry must not pass for the last one.
  if (cursor.length > 8000)
    throw new PlatformError("Microsoft Graph's next page link is longer than this tool can pass on.", 502, undefined, { retryable: false });
  return cursor;
}

function skipTokenOf(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  try {
    const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    throw new PlatformError("This cursor was not given by this tool; pass next_cursor as it was given.", 400, undefined, { retryable: false });
  }
}

export const microsoftTeams = definePlatform<TeamsConfig>({
  id: "microsoft_teams",
  name: "Microsoft Teams",
  description: "Post and reply in Microsoft Teams channels, read a channel's messages, and list the teams and channels you are in (Connect with Microsoft).",
  category: "messaging",
  authKind: "oauth2",
  config: z.object({
    tenant: Tenant.optional().meta({ description: "Whose accounts may sign in: common (default), organizations, or your tenant's id or domain." }),
    base_url: baseUrlField,
    ...oauthConfigFields,
  }),
  secretFields: ["client_secret"],
  oauth: {
    ...endpointsOf("common"),
    endpointsFor: (config) => endpointsOf(typeof config.tenant === "string" && Tenant.safeParse(config.tenant).success ? config.tenant : "common"),
    // Delegated permissions (learn.microsoft.com/graph/permissions-reference); offline_access for a
    // refresh token. ChannelMessage.Read.All (for list_channel_messages) needs an administrator's
    // consent in most tenants, so it is not asked for by default: a person without an admin could
    // not finish signing in. Name it in the start's scopes to read messages.
    defaultScopes: ["offline_access", "User.Read", "Team.ReadBasic.All", "Channel.ReadBasic.All", "ChannelMessage.Send"],
    tokenField: "access_token",
    deploymentClient: true,
  },
  defaultBaseUrl: "https://graph.microsoft.com",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.access_token}` }),
  readError: readGraphError,
  async test(client) {
    const me = await client.request<{ displayName?: string; userPrincipalName?: string }>({ method: "GET", path: `${V}/me` });
    return `Connected as ${me.displayName ?? me.userPrincipalName ?? "the signed-in person"}.`;
  },
  tools: [
    requestTool({
      action: "get_me",
      effect: "read",
      title: "Who is signed in to Microsoft Teams",
      description: "The signed-in person's id, name and email (GET /me).",
      input: z.object({}),
      method: "GET",
      path: `${V}/me`,
      result: (u) => ({ id: u.id, display_name: u.displayName ?? null, email: u.mail ?? null, user_principal_name: u.userPrincipalName ?? null }),
    }),
    requestTool({
      action: "list_joined_teams",
      effect: "read",
      title: "List my Microsoft Teams teams",
      description:
        "The teams the signed-in person is a member of, with their ids (GET /me/joinedTeams). Graph answers them all at once, so next_cursor is always null.",
      input: z.object({}),
      method: "GET",
      path: `${V}/me/joinedTeams`,
      result: (a) => ({
        teams: (a.value ?? []).map((t: any) => ({
          id: t.id,
          display_name: t.displayName ?? null,
          description: t.description ?? null,
          is_archived: t.isArchived ?? null,
        })),
        next_cursor: null,
      }),
    }),
    requestTool({
      action: "list_channels",
      effect: "read",
      title: "List a team's channels",
      description:
        "The channels of a team the person can see, with their ids (GET /teams/{team_id}/channels). Graph answers them all at once, so next_cursor is always null.",
      input: z.object({ team_id: TeamId }),
      method: "GET",
      path: `${V}/teams/{team_id}/channels`,
      result: (a) => ({
        channels: (a.value ?? []).map((c: any) => ({
          id: c.id,
          display_name: c.displayName ?? null,
          description: c.description ?? null,
          membership_type: c.membershipType ?? null,
          web_url: c.webUrl ?? null,
        })),
        next_cursor: null,
      }),
    }),
    requestTool({
      action: "send_channel_message",
      effect: "write",
      title: "Post a message in a Teams channel",
      description:
        "Starts a new conversation in a channel as the signed-in person (POST /teams/{team_id}/channels/{channel_id}/messages), with an optional subject and importance.",
      input: z.object({
        team_id: TeamId,
        channel_id: ChannelId,
        ...Body,
        subject: z.string().min(1).max(255).optional(),
        importance: z.enum(["normal", "high", "urgent"]).optional(),
      }),
      method: "POST",
      path: `${V}/teams/{team_id}/channels/{channel_id}/messages`,
      body: (args) => ({ subject: args.subject, importance: args.importance, body: { contentType: args.content_type, content: args.content } }),
      result: sent,
    }),
    requestTool({
      action: "reply_to_message",
      effect: "write",
      title: "Reply to a Teams channel message",
      description: "Replies in a message's thread (POST /teams/{team_id}/channels/{channel_id}/messages/{message_id}/replies).",
      input: z.object({ team_id: TeamId, channel_id: ChannelId, message_id: MessageId, ...Body }),
      method: "POST",
      path: `${V}/teams/{team_id}/channels/{channel_id}/messages/{message_id}/replies`,
      body: (args) => ({ body: { contentType: args.content_type, content: args.content } }),
      result: sent,
    }),
    requestTool({
      action: "list_channel_messages",
      effect: "read",
      title: "List a Teams channel's messages",
      description:
        "Reads a channel's messages, without their replies (GET /teams/{team_id}/channels/{channel_id}/messages), a page of up to 50 at a time; pass next_cursor as cursor for the next page.",
      input: z.object({ team_id: TeamId, channel_id: ChannelId, limit: z.number().int().min(1).max(50).default(20), cursor: Cursor.optional() }),
      method: "GET",
      path: `${V}/teams/{team_id}/channels/{channel_id}/messages`,
      query: (args) => ({ $top: args.limit, $skiptoken: skipTokenOf(args.cursor) }),
      result: (a) => ({ messages: (a.value ?? []).map(message), next_cursor: cursorOf(a["@odata.nextLink"]) }),
    }),
  ],
});
