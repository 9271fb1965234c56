import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import { authenticateFor } from "../auth/authenticate";
import { MCP_RESOURCE_PATH } from "../auth/resource";
import { assertRole, roleForScopes } from "../core/roles";
import { HubError } from "../core/errors";
import type { Scope } from "../core/scopes";
import type { AppEnv } from "../http/app-env";
import { limitBody, limitNesting } from "../http/middleware";
import { perCredentialLimit } from "../http/rate-limit";
import { HUB_TOOLS } from "./hub-tools";
import { hubMcpServer } from "./server";

export const MCP_PATH = MCP_RESOURCE_PATH;

/** Where MCP clients learn which authorization server issues tokens for this resource (RFC 9728). */
export const resourceMetadataUrl = (origin: string) => `${origin}/.well-known/oauth-protected-resource`;

/**
 * The MCP authorization spec's challenge: every 401 and 403 of /mcp names the resource metadata,
 * so a client with no prior setup can discover how to get a token.
 */
const withResourceMetadata = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const challenge = c.res.headers.get("WWW-Authenticate");
  if ((c.res.status === 401 || c.res.status === 403) && challenge?.startsWith("Bearer")) {
    const rest = challenge.replace(/^Bearer( realm="[^"]*")?,?\s*/, "");
    const metadata = `resource_metadata="${resourceMetadataUrl(new URL(c.req.url).origin)}"`;
    c.res.headers.set("WWW-Authenticate", `Bearer ${metadata}${rest ? `, ${rest}` : ""}`);
  }
});

/**
 * The scope each JSON-RPC message needs, as in REST: reading (lists, templates, executions)
 * needs data:read, running anything needs workflow:execute. Checked before the server sees the
 * message, so a missing scope is an HTTP 403 with `insufficient_scope`, as the MCP spec asks.
 */
function scopeFor(message: unknown): Scope | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  if (method === "tools/list" || method === "resources/list" || method === "resources/read" || method === "resources/templates/list") return "data:read";
  if (method === "tools/call") {
    const hubTool = HUB_TOOLS.find((tool) => tool.name === params?.name);
    return hubTool ? hubTool.scope : "workflow:execute";
  }
  return undefined;
}

const requireMessageScopes = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method !== "POST") return next();
  const body = await c.req.json().catch(() => undefined);
  // Batches (dropped from MCP in 2025-06-18) would let one request, counted once by the rate
  // limit, start many runs: one message per request.
  if (Array.isArray(body) && body.length > 1) {
    return c.json({ jsonrpc: "2.0", error: { code: -32600, message: "Batches are not supported: send one message per request." }, id: null }, 400);
  }
  const messages = Array.isArray(body) ? body : [body];
  const needed = [...new Set(messages.map(scopeFor).filter((s): s is Scope => s !== undefined))];
  const missing = needed.filter((scope) => !c.var.ctx.scopes.includes(scope));
  if (missing.length) {
    throw new HubError("insufficient_scope", `This needs the scope "${missing.join('" and "')}", which the credential lacks.`, {
      challenge: `Bearer error="insufficient_scope", scope="${missing.join(" ")}"`,
    });
  }
  // Roles follow from scopes, as on the REST routes: a viewer lists, an editor calls.
  if (needed.length) assertRole(c.var.ctx.workspace, roleForScopes(needed));
  await next();
});

/**
 * `/mcp`: the MCP streamable HTTP transport, stateless (no session id), so any isolate anywhere
 * can answer any request: each POST builds the server for its caller and answers on its own
 * stream (SSE, which carries progress notifications before the result). With no session there is no stream for
 * unasked messages: GET and DELETE answer 405, as the transport allows.
 */
export const mcpRoutes = new Hono<AppEnv>()
  .use(
    MCP_PATH,
    cors({
      origin: "*",
      allowHeaders: ["Authorization", "Content-Type", "Accept", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID", "Hub-Workspace"],
      allowMethods: ["POST", "GET", "DELETE", "OPTIONS"],
      exposeHeaders: ["Mcp-Session-Id", "Mcp-Protocol-Version", "WWW-Authenticate", "RateLimit", "RateLimit-Policy", "Retry-After"],
      maxAge: 600,
    }),
  )
  .use(MCP_PATH, withResourceMetadata, limitBody, authenticateFor("mcp"), perCredentialLimit, limitNesting, requireMessageScopes)
  .on(["GET", "DELETE"], MCP_PATH, (c) =>
    c.json({ jsonrpc: "2.0", error: { code: -32000, message: "This server keeps no sessions: send requests with POST." }, id: null }, 405, {
      Allow: "POST",
    }),
  )
  .post(MCP_PATH, async (c) => {
    const server = hubMcpServer(c.var.ctx, c.req.raw.signal, new URL(c.req.url).origin);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    // The body was read (and checked) above; the transport takes it parsed.
    const body = await c.req.json().catch(() => undefined);
    return transport.handleRequest(c.req.raw, body === undefined ? undefined : { parsedBody: body });
  });

/**
 * RFC 9728 metadata of the /mcp resource: this origin is its own authorization server. Clients
 * ask at the root and at the path-suffixed form (`…/oauth-protected-resource/mcp`); both answer.
 */
export const protectedResourceMetadata = new Hono<AppEnv>().get("/.well-known/oauth-protected-resource/*", (c) => {
  const origin = new URL(c.req.url).origin;
  c.header("Cache-Control", "public, max-age=3600");
  c.header("Access-Control-Allow-Origin", "*");
  return c.json({
    resource: `${origin}${MCP_PATH}`,
    authorization_servers: [origin],
    bearer_methods_supported: ["header"],
    scopes_supported: ["data:read", "data:write", "workflow:execute"],
    resource_name: "Agent Automation Hub",
    resource_documentation: `${origin}/docs`,
  });
});
