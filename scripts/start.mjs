#!/usr/bin/env node
// Starts the hub locally: secrets for local use, D1 migrations, a first user with a sandbox API
// key (on a non-production start with no users), then `wrangler dev` on 127.0.0.1:$PORT.
// Also imported by the end-to-end tests, which start their own hub with startHub().
import { spawn, execFile } from "node:child_process";
import { createHash, pbkdf2Sync, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const wranglerBin = path.join(root, "node_modules", "wrangler", "bin", "wrangler.js");
const quietEnv = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", NO_D1_WARNING: "true" };

const b64url = (buffer) => Buffer.from(buffer).toString("base64url");

/** `.dev.vars` holds the local secrets; it is created once and never overwritten. */
export function ensureDevVars(file = path.join(root, ".dev.vars")) {
  if (existsSync(file)) return;
  writeFileSync(
    file,
    [
      "# Local secrets for `npm start` (not committed). Deployed Workers use `wrangler secret put`.",
      `JWT_SECRET=${b64url(randomBytes(48))}`,
      `ENCRYPTION_KEY=${randomBytes(32).toString("base64")}`,
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
}

function wrangler(args, persistTo) {
  const full = [wranglerBin, ...args, ...(persistTo ? ["--persist-to", persistTo] : [])];
  return run(process.execPath, full, { cwd: root, env: quietEnv, maxBuffer: 16 * 1024 * 1024 });
}

async function d1(sql, persistTo) {
  const { stdout } = await wrangler(["d1", "execute", "DB", "--local", "--json", "--command", sql], persistTo);
  return JSON.parse(stdout)[0]?.results ?? [];
}

export async function applyMigrations(persistTo) {
  await wrangler(["d1", "migrations", "apply", "DB", "--local"], persistTo);
}

const sqlString = (value) => `'${String(value).replaceAll("'", "''")}'`;

/**
 * Creates the first local user and a sandbox API key straight in local D1, hashed exactly as
 * the Worker hashes them (PBKDF2-SHA256 passwords, SHA-256 keys). Returns undefined if any
 * user exists already.
 */
export async function bootstrapUser(persistTo) {
  const [{ n }] = await d1("SELECT COUNT(*) AS n FROM users", persistTo);
  if (n > 0) return undefined;
  const email = "admin@localhost.test";
  const password = b64url(randomBytes(12));
  const salt = randomBytes(16);
  const passwordHash = `pbkdf2_sha256$100000$${b64url(salt)}$${b64url(pbkdf2Sync(password, salt, 100000, 32, "sha256"))}`;
  const apiKey = `ahk_test_${b64url(randomBytes(32))}`;
  const keyHash = createHash("sha256").update(apiKey).digest("base64url");
  const scopes = "data:read data:write workflow:execute connections:write";
  await d1(
    `INSERT INTO users (email, name, password_hash) VALUES (${sqlString(email)}, 'Local admin', ${sqlString(passwordHash)});
     INSERT INTO api_keys (user_id, name, mode, prefix, key_hash, scopes)
       SELECT id, 'local bootstrap key', 'test', ${sqlString(apiKey.slice(0, 15))}, ${sqlString(keyHash)}, ${sqlString(scopes)}
       FROM users WHERE email = ${sqlString(email)};`,
    persistTo,
  );
  return { email, password, apiKey };
}

async function waitUntilUp(url, child, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the hub did not answer at ${url} within ${timeoutMs / 1000} s`);
}

/** Leases of executions run for 20 s: one more sweep after that finds the work a killed process left. */
const SWEEP_AFTER_START_MS = 25_000;
const CRON_PERIOD_MS = 60_000;

/**
 * `wrangler dev` does not fire cron triggers by itself, but the hub's every-minute scheduled
 * handler is what resumes executions whose runner died or whose queue message was lost (the
 * local queue lives in memory and a killed process loses it), serves overdue agents and clears
 * expired credentials. So the local hub fires it: at start-up, once more when the leases of a
 * killed process have run out, then every minute. Returns a function that stops the ticks.
 */
export function tickScheduledHandler(origin, { log = console.error } = {}) {
  let timer;
  let stopped = false;
  let failing = false;
  const tick = async () => {
    try {
      const response = await fetch(`${origin}/cdn-cgi/local/scheduled?cron=${encodeURIComponent("* * * * *")}`);
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      failing = false;
    } catch (error) {
      // Said once per run of failures, not every minute.
      if (!failing && !stopped) log(`The scheduled handler could not be run: ${error.message}`);
      failing = true;
    }
  };
  const schedule = (delay, next) => {
    if (stopped) return;
    timer = setTimeout(async () => {
      await tick(); // one at a time: the next tick is armed only when this one is done
      schedule(next, next);
    }, delay);
    timer.unref?.();
  };
  tick().then(() => schedule(SWEEP_AFTER_START_MS, CRON_PERIOD_MS));
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * Starts a hub and resolves once it answers. Options: port, persistTo (a state folder; tests
 * use a fresh one), vars (extra Worker vars), stdio ("inherit" or "pipe"), bootstrap (create a
 * first user), tick (fire the scheduled handler at start-up and every minute; default on),
 * inspectorPort (the DevTools protocol of the Worker, for measuring its memory).
 * @param {{ port?: number, persistTo?: string, vars?: Record<string, string>, stdio?: "inherit" | "pipe", bootstrap?: boolean, tick?: boolean, inspectorPort?: number }} [options]
 */
export async function startHub({ port = 8787, persistTo, vars = {}, stdio = "inherit", bootstrap = true, tick = true, inspectorPort } = {}) {
  ensureDevVars();
  if (persistTo) mkdirSync(persistTo, { recursive: true });
  await applyMigrations(persistTo);
  const production = vars.ENVIRONMENT === "production";
  const credentials = bootstrap && !production ? await bootstrapUser(persistTo) : undefined;
  const args = [wranglerBin, "dev", "--ip", "127.0.0.1", "--port", String(port), "--show-interactive-dev-session=false"];
  if (persistTo) args.push("--persist-to", persistTo);
  if (inspectorPort) args.push("--inspector-port", String(inspectorPort));
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const child = spawn(process.execPath, args, { cwd: root, env: quietEnv, stdio: stdio === "inherit" ? "inherit" : "pipe" });
  // With piped output, keep the tail so a failed start can say why.
  let tail = "";
  const keep = (chunk) => (tail = (tail + chunk).slice(-4000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitUntilUp(`${origin}/v1/openapi.json`, child);
  } catch (error) {
    child.kill("SIGTERM");
    throw new Error(`${error.message}${tail ? `\n--- wrangler output ---\n${tail}` : ""}`);
  }
  const stopTicks = tick ? tickScheduledHandler(origin) : () => undefined;
  child.once("exit", stopTicks);
  const stop = () =>
    new Promise((resolve) => {
      stopTicks();
      if (child.exitCode !== null) return resolve();
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
  return { origin, child, credentials, stop };
}

function printWelcome(origin, credentials, stateDir = path.join(root, ".wrangler")) {
  const file = path.join(stateDir, "local-credentials.txt");
  // Relative when it is in the repository, absolute when HUB_STATE_DIR points elsewhere.
  const saved = path.relative(root, file).startsWith("..") ? file : path.relative(root, file);
  const lines = [``, `Agent Automation Hub is running at ${origin}  (API: ${origin}/v1, docs: ${origin}/docs)`, `Dashboard: ${origin}/`];
  if (credentials) {
    lines.push(
      ``,
      `A local user was created; sign in to the dashboard with it (this is shown once; it is also saved in ${saved}):`,
      `  email:    ${credentials.email}`,
      `  password: ${credentials.password}`,
      `  API key:  ${credentials.apiKey}`,
      ``,
      `Try it:`,
      `  curl -s ${origin}/v1/me -H "Authorization: Bearer ${credentials.apiKey}"`,
    );
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(path.join(stateDir, "local-credentials.txt"), `${lines.slice(4).join("\n")}\n`, { mode: 0o600 });
  } else if (existsSync(path.join(stateDir, "local-credentials.txt"))) {
    lines.push(`Local credentials from the first start: ${saved}`);
  }
  console.log(`${lines.join("\n")}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const port = Number(process.env.PORT ?? 8787);
  const vars = process.env.ENVIRONMENT ? { ENVIRONMENT: process.env.ENVIRONMENT } : {};
  // `npm start -- --var NAME:VALUE` overrides a Worker var (a limit, say), as `wrangler dev --var` does.
  for (const pair of parseArgs({ options: { var: { type: "string", multiple: true } } }).values.var ?? []) {
    const at = pair.indexOf(":");
    if (at < 1) throw new Error(`--var takes NAME:VALUE, not "${pair}"`);
    vars[pair.slice(0, at)] = pair.slice(at + 1);
  }
  // HUB_STATE_DIR keeps all local state (D1, Durable Objects) elsewhere than .wrangler/.
  const persistTo = process.env.HUB_STATE_DIR ? path.resolve(process.env.HUB_STATE_DIR) : undefined;
  const hub = await startHub({ port, vars, persistTo });
  printWelcome(hub.origin, hub.credentials, persistTo);
  const shutdown = () => hub.stop().then(() => process.exit(0));
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  hub.child.on("exit", (code) => process.exit(code ?? 0));
}
