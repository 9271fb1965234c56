// A loopback OAuth 2.0 provider and the API it protects, for OAuth connections. It answers as real
// providers do: authorization code with PKCE (S256 checked), short-lived access tokens, refresh
// tokens that rotate (each one works once; a second use is recorded and refused with invalid_grant),
// and an API that answers 401 to an expired or unknown token. Everything is kept per client_id, so
// each test (its own client_id) sees only its own traffic.
//   GET  /authorize?response_type=code&client_id&redirect_uri&state&code_challenge&code_challenge_method=S256[&scope]
//        302 to redirect_uri with code and state (the person said yes), or error=access_denied when told to
//   POST /token  (form; client_secret_post or client_secret_basic) grant_type=authorization_code | refresh_token
//   ANY  /api/…                        the protected API: 200 {ok, client_id, method, path, query, body, channel, ts}, else 401
//   GET  /oauth2/v2/userinfo           Google's userinfo shape
//   POST /__control/<client_id>        {access_ttl?, refresh_error?, refresh_delay_ms?, deny?, style?: "slack"}
//        style "slack": token answers as Slack's oauth.v2.access (token_type "bot", comma-separated scopes,
//        {ok: false, error} with 200 for a refusal) and the API answers {ok: false, error: "invalid_auth"} with 200
//   POST /__expire/<client_id>         every access token of the client runs out now
//   GET  /__stats/<client_id>          {authorizations, authorize: last params, code_exchanges, refreshes, reused_refresh_tokens,
//                                       api_calls, api_refused, token_auth: [methods], access_tokens_seen: [suffixes],
//                                       issued: [every access and refresh token, so tests can look for them where they must not be]}
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";

const random = (prefix) => `${prefix}_${randomBytes(18).toString("base64url")}`;

function send(res, status, body, headers = {}) {
  res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

export function startOAuthProvider(port) {
  const clients = new Map();
  const codes = new Map();
  const accessTokens = new Map();
  const refreshTokens = new Map();
  const client = (id) => {
    if (!clients.has(id)) {
      clients.set(id, {
        settings: { access_ttl: 3600, refresh_error: null, refresh_delay_ms: 0, deny: false, style: "oauth" },
        stats: {
          authorizations: 0,
          authorize: null,
          code_exchanges: 0,
          refreshes: 0,
          reused_refresh_tokens: 0,
          api_calls: 0,
          api_refused: 0,
          token_auth: [],
          access_tokens_seen: [],
          issued: [],
        },
      });
    }
    return clients.get(id);
  };

  const issue = (clientId, scope) => {
    const c = client(clientId);
    const access = random(c.settings.style === "slack" ? "xoxb" : "at");
    const refresh = random("rt");
    accessTokens.set(access, { clientId, expiresAt: Date.now() + c.settings.access_ttl * 1000 });
    refreshTokens.set(refresh, { clientId, scope, used: false });
    c.stats.issued.push(access, refresh);
    if (c.settings.style === "slack") {
      return {
        ok: true,
        access_token: access,
        token_type: "bot",
        scope: scope.split(" ").join(","),
        refresh_token: refresh,
        expires_in: c.settings.access_ttl,
      };
    }
    return { access_token: access, token_type: "Bearer", expires_in: c.settings.access_ttl, refresh_token: refresh, scope };
  };

  const refuse = (res, c, error, description) =>
    c?.settings.style === "slack" ? send(res, 200, { ok: false, error }) : send(res, 400, { error, error_description: description });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, "http://provider");
    const raw = await readBody(req);
    try {
      const control = url.pathname.match(/^\/__(control|expire|stats)\/([^/]+)$/);
      if (control) {
        const [, action, id] = control;
        const c = client(decodeURIComponent(id));
        if (action === "stats") return send(res, 200, c.stats);
        if (action === "expire") {
          for (const token of accessTokens.values()) if (token.clientId === decodeURIComponent(id)) token.expiresAt = 0;
          res.writeHead(204);
          return res.end();
        }
        Object.assign(c.settings, JSON.parse(raw || "{}"));
        res.writeHead(204);
        return res.end();
      }

      if (url.pathname === "/authorize" && req.method === "GET") {
        const p = Object.fromEntries(url.searchParams);
        const c = client(p.client_id ?? "");
        c.stats.authorizations++;
        c.stats.authorize = p;
        if (p.response_type !== "code" || !p.redirect_uri || !p.state || !p.code_challenge || p.code_challenge_method !== "S256") {
          return send(res, 400, {
            error: "invalid_request",
            error_description: "response_type=code, redirect_uri, state and an S256 code_challenge are required",
          });
        }
        const back = new URL(p.redirect_uri);
        back.searchParams.set("state", p.state);
        if (c.settings.deny) {
          back.searchParams.set("error", "access_denied");
          back.searchParams.set("error_description", "The user said no");
        } else {
          const code = random("code");
          codes.set(code, { clientId: p.client_id, redirectUri: p.redirect_uri, challenge: p.code_challenge, scope: (p.scope ?? "").replaceAll(",", " ") });
          back.searchParams.set("code", code);
        }
        res.writeHead(302, { Location: back.toString() });
        return res.end();
      }

      if (url.pathname === "/token" && req.method === "POST") {
        const form = new URLSearchParams(raw);
        let clientId = form.get("client_id");
        let method = form.get("client_secret") ? "client_secret_post" : "none";
        const basic = req.headers.authorization?.match(/^Basic (.+)$/)?.[1];
        if (basic) {
          const [id] = Buffer.from(basic, "base64").toString("utf8").split(":");
          clientId = decodeURIComponent(id);
          method = "client_secret_basic";
        }
        const c = clientId ? client(clientId) : undefined;
        if (!c) return send(res, 401, { error: "invalid_client" });
        c.stats.token_auth.push(method);
        const grant = form.get("grant_type");
        if (grant === "authorization_code") {
          c.stats.code_exchanges++;
          const code = codes.get(form.get("code") ?? "");
          codes.delete(form.get("code") ?? "");
          if (!code || code.clientId !== clientId) return refuse(res, c, "invalid_grant", "unknown or used code");
          if (code.redirectUri !== form.get("redirect_uri")) return refuse(res, c, "invalid_grant", "redirect_uri differs");
          const verifier = form.get("code_verifier") ?? "";
          if (createHash("sha256").update(verifier).digest("base64url") !== code.challenge) return refuse(res, c, "invalid_grant", "PKCE verification failed");
          return send(res, 200, issue(clientId, code.scope));
        }
        if (grant === "refresh_token") {
          c.stats.refreshes++;
          if (c.settings.refresh_delay_ms) await new Promise((resolve) => setTimeout(resolve, c.settings.refresh_delay_ms));
          const token = refreshTokens.get(form.get("refresh_token") ?? "");
          if (!token || token.clientId !== clientId) return refuse(res, c, "invalid_grant", "unknown refresh token");
          if (token.used) {
            c.stats.reused_refresh_tokens++;
            return refuse(res, c, "invalid_grant", "refresh token already used");
          }
          token.used = true;
          if (c.settings.refresh_error) return refuse(res, c, c.settings.refresh_error, "the grant was revoked");
          return send(res, 200, issue(clientId, token.scope));
        }
        return refuse(res, c, "unsupported_grant_type");
      }

      if (url.pathname.startsWith("/api/") || url.pathname === "/oauth2/v2/userinfo") {
        const bearer = req.headers.authorization?.match(/^Bearer (.+)$/)?.[1] ?? "";
        const token = accessTokens.get(bearer);
        const c = token ? client(token.clientId) : undefined;
        if (!token || token.expiresAt <= Date.now()) {
          if (c) c.stats.api_refused++;
          if (c?.settings.style === "slack") return send(res, 200, { ok: false, error: "invalid_auth" });
          return send(
            res,
            401,
            { error: "invalid_token", error_description: "The access token expired" },
            { "WWW-Authenticate": 'Bearer error="invalid_token"' },
          );
        }
        c.stats.api_calls++;
        c.stats.access_tokens_seen.push(bearer.slice(-6));
        if (url.pathname === "/oauth2/v2/userinfo")
          return send(res, 200, { id: "1234567890", email: "person@example.com", verified_email: true, name: "A Person" });
        let body = null;
        try {
          body = raw ? JSON.parse(raw) : null;
        } catch {
          body = raw;
        }
        return send(res, 200, {
          ok: true,
          client_id: token.clientId,
          method: req.method,
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          body,
          channel: body?.channel ?? null,
          ts: "1700000000.000100",
        });
      }
      return send(res, 404, { error: "not_found" });
    } catch (error) {
      return send(res, 500, { error: "server_error", error_description: String(error) });
    }
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve({ close: () => new Promise((r) => server.close(r)) })));
}
