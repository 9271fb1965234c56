import type { Context } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { type PlatformLookup, resolvePlatform } from "../../connections/custom/resolve";
import { PLATFORMS } from "../../connections/platforms";
import type { Platform } from "../../connections/platforms/types";
import { platformFor } from "../../connections/platforms/oauth-spec";
import { type ConnectionSummary, allConnections, presentConnection } from "../../connections/service";
import type { SecretBox } from "../../core/secret-box";
import type { Connection } from "../../db/schema";
import type { AppEnv } from "../../http/app-env";
import { inputJsonSchema } from "../../lib/json-schema";
import type { FormField } from "../forms/form-field";
import { schemaFields } from "../forms/schema-fields";
import { type RefusalStatus, renderNotFound as notFound } from "../common";
import { ConnectionPage, type ConnectionPageProps } from "./connections-detail";
import { type ConnectionView, ConnectionsPage, type ConnectionsPageProps } from "./connections-list";
import { NewConnectionPage, type NewConnectionProps } from "./connections-new";
import type { PlatformChoice } from "./platform-chooser";
import { type SignedIn, page } from "../kit";

export type Status = 200 | RefusalStatus;

/**
 * A platform's config schema (the one GET /v1/connections/platforms publishes) as form fields:
 * settings are one line each, trimmed, labelled in words, secrets kept out of the page.
 */
export const configFieldsOf = (platform: Platform): FormField[] =>
  schemaFields(inputJsonSchema(platform.config), { prefix: "config", ids: "name", labels: "words", trim: true, pairs: true, secrets: platform.secretFields });

/** The settings of a connection made with OAuth (Slack's differ from its pasted-token ones). */
export const oauthFieldsOf = (platform: Platform): FormField[] => configFieldsOf(platformFor(platform, "oauth2"));

export const choiceOf = (platform: Platform): PlatformChoice => ({
  id: platform.id,
  name: platform.name,
  description: platform.description,
  category: platform.category,
  oauth: Boolean(platform.oauth),
  oauthOnly: platform.authKind === "oauth2",
});

export const platformChoices = (): PlatformChoice[] => PLATFORMS.map(choiceOf);

/**
 * Pages whose forms may go on to a provider's consent page ("Connect with …", "Reconnect", an MCP
 * server behind OAuth): the answer to the form is a redirect there, which `form-action` must allow.
 */
async function allowingProviders(c: Context<AppEnv>, response: Response | Promise<Response>): Promise<Response> {
  const answer = await response;
  const policy = answer.headers.get("Content-Security-Policy");
  const schemes = c.get("config").allowPrivateNetworkUrls ? "https: http:" : "https:";
  if (policy) answer.headers.set("Content-Security-Policy", policy.replace("form-action 'self'", `form-action 'self' ${schemes}`));
  return answer;
}

/** The API's presentation (secrets masked by presentConnection), plus the platform's display name. */
export async function viewOf(connection: ConnectionSummary, box: SecretBox, lookup: PlatformLookup): Promise<ConnectionView> {
  // A custom platform's name is the person's own, read as the API reads it.
  const platform = await resolvePlatform(lookup, connection.platform);
  return { ...(await presentConnection(connection, box)), platform_name: platform?.name ?? connection.platform };
}

export async function renderList(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  extra: Pick<ConnectionsPageProps, "saved" | "tested" | "error"> = {},
  status: Status = 200,
) {
  const { ctx } = signedIn;
  const box = await ctx.secrets();
  const connections = await Promise.all((await allConnections(ctx)).map((row) => viewOf(row, box, ctx)));
  const csrf = await csrfToken(c, ctx.actor.id);
  return page(c, <ConnectionsPage email={signedIn.email} csrf={csrf} connections={connections} platforms={platformChoices()} {...extra} />, status);
}

export async function renderDetail(c: Context<AppEnv>, signedIn: SignedIn, connection: Connection, extra: Pick<ConnectionPageProps, "outcome"> = {}) {
  const { ctx } = signedIn;
  const view = await viewOf(connection, await ctx.secrets(), ctx);
  const tools = connection.platform === "mcp" && Array.isArray(connection.toolsCache) ? connection.toolsCache.map(toolName) : undefined;
  const csrf = await csrfToken(c, ctx.actor.id);
  return allowingProviders(c, page(c, <ConnectionPage email={signedIn.email} csrf={csrf} connection={view} tools={tools} {...extra} />));
}

export function renderNotFound(c: Context<AppEnv>, signedIn: SignedIn) {
  return notFound(c, signedIn, "You have no connection with that id. It may have been deleted.", { href: "/app/connections", label: "Back to connections" });
}

export async function renderNew(c: Context<AppEnv>, signedIn: SignedIn, props: Omit<NewConnectionProps, "email" | "csrf" | "platforms">, status: Status = 200) {
  const csrf = await csrfToken(c, signedIn.ctx.actor.id);
  return allowingProviders(
    c,
    page(c, <NewConnectionPage email={signedIn.email} csrf={csrf} platforms={platformChoices()} query={c.req.query("q")} {...props} />, status),
  );
}

const toolName = (tool: unknown) =>
  tool && typeof tool === "object" && typeof (tool as { name?: unknown }).name === "string" ? (tool as { name: string }).name : "?";
