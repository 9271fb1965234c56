// A loopback API that limits each token (its Authorization header) to `limit` requests per
// `windowMs` (fixed windows, aligned to the clock) and answers beyond it as real APIs do: 429
// with Retry-After, and the token refused until the time it was told. Each test uses its own
// tenant (base_url = <fake>/t/<tenant>), so parallel test files never see each other's calls.
//   POST /__config/<tenant>  {limit?, windowMs?, penaltyMs?, retryAfter?, fields?}: how the tenant answers
//     retryAfter: "seconds" (default) | "date" (an HTTP-date) | "none"
//     fields: "x" (X-RateLimit-Limit/-Remaining/-Reset, reset in seconds from now; default) | "x-epoch"
//             (reset as epoch seconds) | "ietf" (RateLimit and RateLimit-Policy) | "none"
//     penaltyMs: how long a token is refused after going over (at least to the window's end)
//   GET  /__stats/<tenant>   {requests, ok, limited, early, first_ok_at, last_ok_at, log: [{token, at, status}]}
//     early: requests that came while their token had been told to wait (Retry-After not yet passed)
// Anything else under /t/<tenant>/… is a call, answered {ok: true, n} while the token is within its limit.
import http from "node:http";

const DEFAULTS = { limit: 10, windowMs: 1000, penaltyMs: 0, retryAfter: "seconds", fields: "x" };
const MAX_LOG = 5000;

function send(res, status, body, headers = {}) {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

/** The tenant's answer fields for a token with `remaining` left in a window ending at `windowEnd`. */
function limitFields(config, remaining, windowEnd, now) {
  const resetSeconds = Math.max(0, Math.ceil((windowEnd - now) / 1000));
  switch (config.fields) {
    case "none":
      return {};
    case "ietf":
      return {
        RateLimit: `limit=${config.limit}, remaining=${remaining}, reset=${resetSeconds}`,
        "RateLimit-Policy": `${config.limit};w=${config.windowMs / 1000}`,
      };
    case "x-epoch":
      return {
        "X-RateLimit-Limit": String(config.limit),
        "X-RateLimit-Remaining": String(remaining),
        "X-RateLimit-Reset": String(Math.ceil(windowEnd / 1000)),
      };
    default:
      return { "X-RateLimit-Limit": String(config.limit), "X-RateLimit-Remaining": String(remaining), "X-RateLimit-Reset": String(resetSeconds) };
  }
}

export function startRateLimitedApi(port, defaults = {}) {
  /** tenant → {config, tokens: Map<token, {window, count, toldUntil}>, stats} */
  const tenants = new Map();
  const tenantOf = (name) => {
    let tenant = tenants.get(name);
    if (!tenant) {
      tenant = {
        config: { ...DEFAULTS, ...defaults },
        tokens: new Map(),
        stats: { requests: 0, ok: 0, limited: 0, early: 0, first_ok_at: null, last_ok_at: null, log: [] },
      };
      tenants.set(name, tenant);
    }
    return tenant;
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, "http://fake");
    const raw = await readBody(req);
    const control = url.pathname.match(/^\/__(config|stats)\/([\w-]+)$/);
    if (control) {
      const [, verb, name] = control;
      const tenant = tenantOf(name);
      if (verb === "stats") return send(res, 200, tenant.stats);
      Object.assign(tenant.config, raw ? JSON.parse(raw) : {});
      return send(res, 200, tenant.config);
    }
    const match = url.pathname.match(/^\/t\/([\w-]+)(\/.*)?$/);
    if (!match) return send(res, 404, { message: "unknown fake path" });
    const tenant = tenantOf(match[1]);
    const { config, stats } = tenant;
    const token = req.headers.authorization ?? "";
    const now = Date.now();
    const window = Math.floor(now / config.windowMs);
    const windowEnd = (window + 1) * config.windowMs;
    let state = tenant.tokens.get(token);
    if (!state || state.window !== window) {
      state = { window, count: 0, toldUntil: state?.toldUntil ?? 0 };
      tenant.tokens.set(token, state);
    }
    stats.requests++;
    const log = (status) => stats.log.length < MAX_LOG && stats.log.push({ token, at: now, status });

    const refused = now < state.toldUntil;
    if (refused) stats.early++;
    if (!refused && state.count < config.limit) {
      state.count++;
      stats.ok++;
      stats.first_ok_at ??= now;
      stats.last_ok_at = now;
      log(200);
      return send(res, 200, { ok: true, n: stats.ok }, limitFields(config, config.limit - state.count, windowEnd, now));
    }
    // Over the limit (or back too early): refused until the window ends, or longer as a penalty.
    stats.limited++;
    log(429);
    const headers = limitFields(config, 0, windowEnd, now);
    if (config.retryAfter !== "none") {
      let until = refused ? state.toldUntil : Math.max(windowEnd, now + config.penaltyMs);
      if (config.retryAfter === "date") {
        until = Math.ceil(until / 1000) * 1000; // an HTTP-date counts whole seconds
        headers["Retry-After"] = new Date(until).toUTCString();
      } else {
        const seconds = Math.max(1, Math.ceil((until - now) / 1000));
        until = now + seconds * 1000;
        headers["Retry-After"] = String(seconds);
      }
      if (!refused) state.toldUntil = until;
    }
    return send(res, 429, { message: "Too many requests" }, headers);
  });
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        stats: (name) => tenantOf(name).stats,
        configure: (name, config) => Object.assign(tenantOf(name).config, config),
        close: () => new Promise((done) => server.close(() => done())),
      }),
    );
  });
}
