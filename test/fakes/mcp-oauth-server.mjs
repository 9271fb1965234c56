// An MCP server behind OAuth on loopback, built from the MCP SDK's own server-side auth (the
// authorization server router, bearer-token middleware and the demo in-memory provider's shape),
// for MCP connections that need an authorization. It answers an unauthenticated request with 401
// and `WWW-Authenticate: Bearer resource_metadata="…"`, publishes RFC 9728 and RFC 8414 metadata,
// registers clients dynamically (RFC 7591), requires PKCE, binds tokens to the `resource`
// (RFC 8707), and issues short-lived access tokens with rotating refresh tokens. Everything is
// kept per registered client (one per hub connection), so tests see only their own.
//   POST /mcp                           the MCP endpoint (stateless streamable HTTP): tools `whoami`, `echo`
//   POST /__expire/<client_id>          the client's access tokens run out now
//   POST /__control                     {access_ttl?}: lifetime of tokens issued from now on
//   GET  /__stats/<client_id>           {registrations, code_exchanges, refreshes, reused_refresh_tokens, mcp_calls, resources: [...]}
import { randomUUID } from "node:crypto";
import express from "express";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/** The demo provider's shape (clients store, codes, tokens), with refresh tokens that rotate. */
class RotatingProvider {
  constructor(resource) {
    this.resource = resource;
    this.accessTtl = 3600;
    this.codes = new Map();
    this.accessTokens = new Map();
    this.refreshTokens = new Map();
    this.stats = new Map();
    const clients = new Map();
    const stats = (id) => this.statsOf(id);
    this.clientsStore = {
      async getClient(id) {
        return clients.get(id);
      },
      async registerClient(metadata) {
        clients.set(metadata.client_id, metadata);
        stats(metadata.client_id).registrations++;
        return metadata;
      },
    };
  }

  statsOf(clientId) {
    if (!this.stats.has(clientId)) {
      this.stats.set(clientId, { registrations: 0, code_exchanges: 0, refreshes: 0, reused_refresh_tokens: 0, mcp_calls: 0, resources: [] });
    }
    return this.stats.get(clientId);
  }

  async authorize(client, params, res) {
    if (!client.redirect_uris.includes(params.redirectUri)) throw new InvalidGrantError("Unregistered redirect_uri");
    const code = randomUUID();
    this.codes.set(code, { clientId: client.client_id, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set("code", code);
    if (params.state !== undefined) target.searchParams.set("state", params.state);
    res.redirect(target.toString());
  }

  async challengeForAuthorizationCode(_client, code) {
    const found = this.codes.get(code);
    if (!found) throw new InvalidGrantError("Invalid authorization code");
    return found.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client, code, _verifier, _redirectUri, resource) {
    const found = this.codes.get(code);
    if (!found || found.clientId !== client.client_id) throw new InvalidGrantError("Invalid authorization code");
    this.codes.delete(code);
    const stats = this.statsOf(client.client_id);
    stats.code_exchanges++;
    stats.resources.push(String(resource ?? found.params.resource ?? ""));
    if (String(resource ?? found.params.resource ?? "") !== this.resource) throw new InvalidGrantError(`Tokens are only issued for ${this.resource}`);
    return this.issue(client.client_id, found.params.scopes ?? []);
  }

  async exchangeRefreshToken(client, refreshToken, _scopes, resource) {
    const stats = this.statsOf(client.client_id);
    stats.refreshes++;
    const found = this.refreshTokens.get(refreshToken);
    if (!found || found.clientId !== client.client_id) throw new InvalidGrantError("Unknown refresh token");
    if (found.used) {
      stats.reused_refresh_tokens++;
      throw new InvalidGrantError("Refresh token already used");
    }
    found.used = true;
    stats.resources.push(String(resource ?? ""));
    return this.issue(client.client_id, found.scopes);
  }

  issue(clientId, scopes) {
    const access = randomUUID();
    const refresh = randomUUID();
    this.accessTokens.set(access, { clientId, scopes, expiresAt: Date.now() + this.accessTtl * 1000 });
    this.refreshTokens.set(refresh, { clientId, scopes, used: false });
    return { access_token: access, token_type: "bearer", expires_in: this.accessTtl, refresh_token: refresh, scope: scopes.join(" ") };
  }

  async verifyAccessToken(token) {
    const found = this.accessTokens.get(token);
    if (!found || found.expiresAt <= Date.now()) throw new InvalidTokenError("Invalid or expired token");
    return { token, clientId: found.clientId, scopes: found.scopes, expiresAt: Math.floor(found.expiresAt / 1000), resource: new URL(this.resource) };
  }

  expire(clientId) {
    for (const token of this.accessTokens.values()) if (token.clientId === clientId) token.expiresAt = 0;
  }
}

function mcpServerFor(clientId) {
  const server = new McpServer({ name: "oauth-protected-test-server", version: "1.0.0" });
  server.registerTool("whoami", { description: "The OAuth client the call was authorized for." }, async () => ({
    content: [{ type: "text", text: `client ${clientId}` }],
  }));
  server.registerTool("echo", { description: "Echoes the message.", inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: "text", text: `Echo: ${message}` }],
  }));
  return server;
}

export async function startMcpOAuthServer(port) {
  const origin = `http://127.0.0.1:${port}`;
  const mcpUrl = new URL(`${origin}/mcp`);
  const provider = new RotatingProvider(mcpUrl.href);
  const app = express();
  app.use(express.json());

  app.post("/__expire/:client", (req, res) => {
    provider.expire(req.params.client);
    res.status(204).end();
  });
  app.post("/__control", (req, res) => {
    if (typeof req.body?.access_ttl === "number") provider.accessTtl = req.body.access_ttl;
    res.status(204).end();
  });
  app.get("/__stats/:client", (req, res) => res.json(provider.statsOf(req.params.client)));

  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(origin),
      resourceServerUrl: mcpUrl,
      scopesSupported: ["mcp:tools"],
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
    }),
  );

  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl), expectedResource: mcpUrl });
  app.post("/mcp", bearer, async (req, res) => {
    const clientId = req.auth.clientId;
    provider.statsOf(clientId).mcp_calls++;
    const server = mcpServerFor(clientId);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // Stateless: no standalone stream and no sessions to end.
  app.get("/mcp", bearer, (_req, res) => res.status(405).end());
  app.delete("/mcp", bearer, (_req, res) => res.status(405).end());

  return new Promise((resolve) => {
    const listener = app.listen(port, "127.0.0.1", () => resolve({ close: () => new Promise((r) => listener.close(r)) }));
  });
}
