#!/usr/bin/env node
// Starts the hub locally: secrets for local use, D1 migrations, a first user with a sandbox API
// key (on a non-production start with no users), then `wrangler dev` on 127.0.0.1:$PORT.
// Also imported by the end-to-end tests, which start their own hub with startHub().
// Run as `npm start`, it stops wrangler and workerd on SIGTERM, SIGINT or SIGHUP, and when the
// process that started it goes away (npm killed, say).
import { spawn, execFile, execFileSync } from "node:child_process";
import { createHash, pbkdf2Sync, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long wrangler gets to shut workerd down after SIGTERM before the rest of its tree gets SIGKILL. */
const STOP_GRACE_MS = 5_000;

/**
 * Every process below `root` (children, grandchildren and on), parents first, from one `ps`
 * listing. The `ps` run for it is left out.
 * @returns {{ pid: number, ppid: number }[]}
 */
export function processesBelow(root) {
  let listing;
  try {
    listing = execFileSync("ps", ["-A", "-o", "pid=,ppid=,comm="], { encoding: "utf8" });
  } catch {
    return [];
  }
  const rows = listing
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([, , comm]) => comm !== "ps")
    .map(([pid, ppid]) => ({ pid: Number(pid), ppid: Number(ppid) }));
  const below = [];
  const seen = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of rows)
      if (seen.has(row.ppid) && !seen.has(row.pid)) {
        seen.add(row.pid);
        below.push(row);
        grew = true;
      }
  }
  return below;
}

/** The parent of `pid`, or undefined if it cannot be told (the process is gone, say). */
function parentOf(pid) {
  try {
    if (process.platform === "linux") {
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ")".
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    }
    const ppid = Number(execFileSync("ps", ["-o", "ppid=", "-p", String(pid)], { encoding: "utf8" }).trim());
    return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a live process; an exited one its parent has not reaped yet does not count. */
function running(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return error.code === "EPERM";
  }
  if (process.platform !== "linux") return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return false;
  }
}

function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}

/** Resolves true once none of `pids` runs, false if some still do after `ms`. */
async function allGone(pids, ms) {
  const deadline = Date.now() + ms;
  while (pids.some(running)) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
}

/**
 * Ends a tree of processes: SIGTERM to `top` (wrangler passes it on and shuts workerd down), then,
 * after `graceMs`, SIGKILL to whatever of `top` and `below` still runs. The tree is listed before
 * any signal: once wrangler is gone, an orphaned workerd could no longer be found by its parent.
 */
async function endProcesses(top, below, graceMs = STOP_GRACE_MS) {
  const all = [...top, ...below];
  for (const pid of top) signal(pid, "SIGTERM");
  if (await allGone(all, graceMs)) return;
  for (const pid of all) if (running(pid)) signal(pid, "SIGKILL");
  await allGone(all, 2_000);
}

/** Stops a child process and everything it started; resolves once the child has exited. */
async function endChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await endProcesses(
    [child.pid],
    processesBelow(child.pid).map((row) => row.pid),
  );
  await exited;
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
    await sleep(250);
  }
  throw new Error(`the hub did not answer at ${url} within ${timeoutMs / 1000} s`);
}

/**
 * Leases of executions run for 20 s and the sweep takes only those 10 s past their end
 * (src/executions/sweep.ts), so one more sweep 35 s after start-up finds all the work a killed
 * process left, however quickly the new process came up.
 */
const SWEEP_AFTER_START_MS = 35_000;
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
 * inspectorPort (the DevTools protocol of the Worker, for measuring its memory). `stop()` ends
 * wrangler and workerd (SIGTERM, then SIGKILL after 5 s) and resolves once they are gone.
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
    await endChild(child);
    throw new Error(`${error.message}${tail ? `\n--- wrangler output ---\n${tail}` : ""}`);
  }
  const stopTicks = tick ? tickScheduledHandler(origin) : () => undefined;
  child.once("exit", stopTicks);
  const stop = async () => {
    stopTicks();
    await endChild(child);
  };
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

/**
 * Calls `onGone` once the process that started this one goes away (this process is then adopted
 * by another, so its parent id changes). Under npm, whose `sh -c` outlives a killed npm, the
 * parent's parent is watched too. Checked every 500 ms.
 */
function watchParent(onGone) {
  const parent = process.ppid;
  const grandparent = process.env.npm_lifecycle_event ? parentOf(parent) : undefined;
  const timer = setInterval(() => {
    const adopted = process.ppid !== parent;
    const parentAdopted = grandparent !== undefined && grandparent > 1 && parentOf(parent) !== grandparent;
    if (adopted || parentAdopted) {
      clearInterval(timer);
      onGone(adopted ? "its parent process is gone" : "npm is gone");
    }
  }, 500);
  timer.unref();
}

async function main() {
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

  // Whoever reads our output may be gone by the time we stop (a killed parent's pipe): a failed
  // write must not end this process before wrangler and workerd are stopped.
  process.stdout.on("error", () => undefined);
  process.stderr.on("error", () => undefined);
  let hub;
  let stopping = false;
  const shutdown = async (why) => {
    if (stopping) return;
    stopping = true;
    console.error(`Stopping the hub: ${why}.`);
    if (hub) await hub.stop();
    // Whatever else is still running below this process (a start-up step, a wrangler that has not
    // answered yet) ends too.
    const below = processesBelow(process.pid);
    await endProcesses(
      below.filter((row) => row.ppid === process.pid).map((row) => row.pid),
      below.filter((row) => row.ppid !== process.pid).map((row) => row.pid),
    );
    process.exit(0);
  };
  for (const name of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(name, () => shutdown(name));
  watchParent(shutdown);

  try {
    hub = await startHub({ port, vars, persistTo });
  } catch (error) {
    if (stopping) return; // shutdown ends the process
    throw error;
  }
  if (stopping) return; // a signal came while the hub was starting: shutdown ends it
  printWelcome(hub.origin, hub.credentials, persistTo);
  hub.child.on("exit", (code) => {
    if (!stopping) process.exit(code ?? 0);
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
