#!/usr/bin/env node
// Benchmark for triggers (npm run bench), on local `wrangler dev`:
//   1. signed webhooks to a one-step run (a `set` step), in the hub's own scheme and in Stripe's,
//      10 connections, each request a fresh event (its own body, timestamp and signature): the
//      202's latency p50/p99 against GET /health at the same concurrency, each row on a hub of
//      its own, on the public port and on the Worker's own socket behind it; from accepted (the
//      run's created_at) to the run started and succeeded, both under that load and with one
//      event at a time; and at a steady rate;
//   2. 100 agents polling a local feed every 5 s (each its own /feed/<n>, so the feed tells when
//      each agent polled) while new items arrive at a steady rate: how late each poll comes after
//      the previous one plus the interval, how soon a new item has its run, runs started per
//      second, and any item missed or started twice.
import { createHmac, randomUUID } from "node:crypto";
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { startHub } from "../scripts/start.mjs";
import { startFeed } from "../test/fakes/feed.mjs";
import { freePort, median, percentile, workerOrigin } from "./lib.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 10;
/** One event at a time, to see the path from accepted to started without a backlog. */
const PACED_EVENTS = Number(process.env.BENCH_PACED_EVENTS ?? 50);
/**
 * Events per second over the 10 connections for the steady-rate measurement: what a provider's
 * deliveries look like (they come at the rate things happen), against the saturated rows, where
 * each connection sends its next request the moment the last is answered and p99 is mostly the
 * queue in front of the one local thread.
 */
const STEADY_RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 100);
const POLL_AGENTS = Number(process.env.BENCH_POLL_AGENTS ?? 100);
const POLL_INTERVAL_SECONDS = 5;
const POLL_SECONDS = Number(process.env.BENCH_POLL_SECONDS ?? 60);
/** New feed items per second, over all agents together (each item to an agent picked at random). */
const ITEMS_PER_SECOND = Number(process.env.BENCH_POLL_ITEMS_PER_SECOND ?? 100);
const ONE_STEP = [{ id: "note", type: "set", values: { seen: "{{input}}" } }];
const STRIPE_SECRET = `whsec_${randomUUID().replaceAll("-", "")}`;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (x) => (x === undefined ? "-" : `${Math.round(x)} ms`);
const p50p99 = (xs) => `p50 ${ms(median(xs))}  p99 ${ms(percentile(xs, 0.99))}`;

/** A hub as the other benchmarks start it (fresh state, no first user, limits out of the way), with room for 100+ agents and their runs. */
async function triggerHub() {
  const state = mkdtempSync(path.join(os.tmpdir(), "hub-bench-"));
  const hub = await startHub({
    port: await freePort(),
    persistTo: state,
    stdio: "pipe",
    bootstrap: false,
    vars: {
      REQUEST_RATE_LIMIT_PER_MINUTE: "1000000",
      USER_RATE_LIMIT_PER_MINUTE: "1000000",
      // Every poll is a tool call of the agent's owner: 100 agents every 5 s make 1,200 a minute.
      TOOL_RATE_LIMIT_PER_MINUTE: "1000000",
      MAX_AGENTS_PER_USER: "1000",
      MAX_RUNNING_EXECUTIONS_PER_USER: "1000000",
      MIN_INTERVAL_SECONDS: "1",
    },
  });
  // What the hub logs as errors or warnings, summed up after the measurements. A reload (wrangler
  // dev rebuilds the Worker when a source file changes) resets every object and cuts runs short:
  // the figures of a run with one are not the hub's.
  const problems = new Map();
  let partial = "";
  const scan = (chunk) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (/Reloading local server/.test(line)) {
        const what = "the Worker was reloaded (a source file changed): the figures of this run are not comparable";
        problems.set(what, (problems.get(what) ?? 0) + 1);
        continue;
      }
      // wrangler's offline fallback for Request.cf, not the hub's.
      if (/workers\.cloudflare\.com|Request\.cf|^\s+at /.test(line)) continue;
      if (!/"level":"(error|warn)"|\bError\b|✘|\bwarn/i.test(line)) continue;
      const what = (/"message":"([^"]{1,120})/.exec(line)?.[1] ?? line.replace(/\s+/g, " ").trim()).slice(0, 160);
      problems.set(what, (problems.get(what) ?? 0) + 1);
    }
  };
  hub.child.stdout?.on("data", scan);
  hub.child.stderr?.on("data", scan);
  const call = async (method, p, body, token) => {
    const response = await fetch(`${hub.origin}${p}`, {
      method,
      headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${p}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const stop = async () => {
    await hub.stop();
    rmSync(state, { recursive: true, force: true });
  };
  let key;
  try {
    const registered = await call("POST", "/v1/auth/register", { email: "bench@example.com", password: "benchmark password" });
    ({ key } = await call("POST", "/v1/auth/api-keys", { name: "bench" }, registered.access_token));
  } catch (error) {
    await stop(); // a hub left running would keep this process alive
    throw error;
  }
  return {
    hub,
    post: (p, body) => call("POST", p, body, key),
    put: (p, body) => call("PUT", p, body, key),
    get: (p) => call("GET", p, undefined, key),
    problems,
    stop,
  };
}

/** Every execution of a workflow (newest first), page by page. */
async function executionsOf(bench, workflowId) {
  const all = [];
  let cursor = null;
  do {
    const page = await bench.get(`/v1/workflows/${workflowId}/executions?limit=100${cursor ? `&cursor=${cursor}` : ""}`);
    all.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

const isFinal = (e) => ["succeeded", "failed", "cancelled"].includes(e.status);

/** Waits (at most `limitMs`) until every execution of the workflows has ended; answers them. */
async function drained(bench, workflowIds, expected, limitMs = 90_000) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const runs = (await Promise.all(workflowIds.map((id) => executionsOf(bench, id)))).flat();
    if ((runs.length >= expected && runs.every(isFinal)) || Date.now() > deadline) return runs;
    await sleep(1000);
  }
}

const hmacHex = (secret, message) => createHmac("sha256", secret).update(message).digest("hex");

/** A fresh event signed the hub's way or Stripe's: its own body, timestamp and signature. */
function signedEvent(scheme, secret) {
  const t = Math.floor(Date.now() / 1000);
  const id = `evt_${randomUUID().replaceAll("-", "")}`;
  if (scheme === "hub") {
    const body = JSON.stringify({ type: "bench.event", id, amount: 42 });
    return {
      body,
      headers: { "Content-Type": "application/json", "X-Hub-Timestamp": String(t), "X-Hub-Signature": `sha256=${hmacHex(secret, `${t}.${body}`)}` },
    };
  }
  const body = JSON.stringify({ id, object: "event", type: "invoice.paid", data: { object: { amount_paid: 4200 } } });
  return { body, headers: { "Content-Type": "application/json", "Stripe-Signature": `t=${t},v1=${hmacHex(secret, `${t}.${body}`)}` } };
}

function load(origin, { path: p, seconds = SECONDS, sign, onAccepted }) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${origin}${p}`,
        connections: CONNECTIONS,
        duration: seconds,
        requests: [
          sign
            ? {
                method: "POST",
                setupRequest: (request) => {
                  const event = sign();
                  return { ...request, method: "POST", body: event.body, headers: { ...request.headers, ...event.headers } };
                },
                onResponse: (status, body) => {
                  if (status === 202) onAccepted?.(JSON.parse(body).execution_id);
                },
              }
            : { method: "GET" },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

/**
 * Requests sent at a steady rate over CONNECTIONS kept-alive connections, each at its due time
 * whether or not earlier ones were answered (autocannon's own rate option sends each second's
 * requests in one burst). Latency counts from the due time, so a request that waited for a free
 * connection counts its wait too.
 */
async function steadyLoad(origin, { path: p, sign, rate = STEADY_RATE, seconds = SECONDS }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const url = new URL(`${origin}${p}`);
  const latencies = [];
  let failed = 0;
  const send = (due) =>
    new Promise((resolve) => {
      const event = sign?.();
      const request = http.request(
        { agent, host: url.hostname, port: url.port, path: url.pathname, method: event ? "POST" : "GET", headers: event?.headers ?? {} },
        (response) => {
          response.resume();
          response.on("end", () => {
            latencies.push(performance.now() - due);
            if (response.statusCode >= 300) failed++;
            resolve();
          });
        },
      );
      request.on("error", () => {
        failed++;
        resolve();
      });
      request.end(event?.body);
    });
  const start = performance.now();
  const total = Math.round(rate * seconds);
  const sent = [];
  for (let n = 0; n < total; n++) {
    const due = start + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    sent.push(send(due));
  }
  await Promise.all(sent);
  agent.destroy();
  return { rate: (latencies.length / (performance.now() - start)) * 1000, latencies, failed };
}

/** Accepted (the run's created_at, when the hub took the event) to started and to succeeded. */
function runTimes(runs) {
  const started = [];
  const succeeded = [];
  for (const run of runs) {
    const accepted = Date.parse(run.created_at);
    // A run started in the invocation that accepted it is stamped started (in the Worker) just
    // before its row's created_at (by SQL): that is no wait at all.
    if (run.started_at) started.push(Math.max(0, Date.parse(run.started_at) - accepted));
    if (run.status === "succeeded" && run.finished_at) succeeded.push(Date.parse(run.finished_at) - accepted);
  }
  return { started, succeeded, failed: runs.filter((r) => r.status !== "succeeded").length, slow: started.filter((t) => t > 5000).length };
}

/** A webhook agent on `bench`'s hub, for the hub's scheme or Stripe's, with a one-step workflow. */
async function webhookAgent(bench, verify) {
  const workflow = await bench.post("/v1/workflows", {
    workflow_name: `Webhook ${verify}`,
    description: "benchmark",
    trigger_type: "webhook",
    trigger_config: { verify },
    steps: ONE_STEP,
  });
  const agent = await bench.post("/v1/agents/deploy", { workflow_id: workflow.id });
  if (verify === "stripe") await bench.put(`/v1/agents/${agent.agent_id}/webhook-secret`, { secret: STRIPE_SECRET });
  const secret = verify === "hub" ? agent.webhook_secret : STRIPE_SECRET;
  return { verify, workflow, path: `/v1/hooks/agents/${agent.agent_id}`, sign: () => signedEvent(verify, secret) };
}

/**
 * Measures one row on a hub of its own, started for it and stopped after: the local runtime's
 * tail grows with what it has served (its memory and `/health`'s own p99 climb run after run), so
 * on one shared hub a row's figures depended on the rows before it.
 */
async function onFreshHub(problems, work) {
  const bench = await triggerHub();
  try {
    return await work(bench);
  } finally {
    for (const [what, n] of bench.problems) problems.set(what, (problems.get(what) ?? 0) + n);
    await bench.stop();
  }
}

/** The origin of `door` on `bench`'s hub; undefined when the Worker's own socket cannot be found. */
async function originOf(bench, door) {
  return door === "proxy" ? bench.hub.origin : await workerOrigin(bench.hub);
}

/**
 * Saturated: 10 connections, each sending again once answered, after a 2 s warm-up of the same
 * path, through `door`: the public port ("proxy", wrangler's dev proxy in front) or the Worker's
 * own socket ("worker").
 */
function saturatedRow(problems, door, verify) {
  return onFreshHub(problems, async (bench) => {
    const origin = await originOf(bench, door);
    if (!origin) return undefined;
    if (!verify) {
      await load(origin, { path: "/health", seconds: 2 });
      return { result: await load(origin, { path: "/health" }) };
    }
    const s = await webhookAgent(bench, verify);
    await load(origin, { ...s, seconds: 2 });
    const before = (await executionsOf(bench, s.workflow.id)).length;
    await drained(bench, [s.workflow.id], before);
    const accepted = new Set();
    const result = await load(origin, { ...s, onAccepted: (id) => accepted.add(id) });
    // The runs the measured load started, once they have ended.
    const runs = await drained(bench, [s.workflow.id], before + accepted.size);
    return { result, accepted, times: runTimes(runs.filter((run) => accepted.has(run.id))) };
  });
}

/** A steady rate (open loop) after a 2 s warm-up at that rate; for webhooks, then one event at a time. */
function steadyRow(problems, verify) {
  return onFreshHub(problems, async (bench) => {
    const origin = bench.hub.origin;
    const s = verify ? await webhookAgent(bench, verify) : { path: "/health" };
    await steadyLoad(origin, { ...s, seconds: 2 });
    if (verify) await drained(bench, [s.workflow.id], (await executionsOf(bench, s.workflow.id)).length);
    const result = await steadyLoad(origin, s);
    if (!verify) return { result };
    // One event at a time: accepted -> started with no backlog.
    const ids = new Set();
    const latencies = [];
    for (let i = 0; i < PACED_EVENTS; i++) {
      const event = s.sign();
      const sent = performance.now();
      const response = await fetch(`${origin}${s.path}`, { method: "POST", headers: event.headers, body: event.body });
      latencies.push(performance.now() - sent);
      if (response.status !== 202) throw new Error(`${verify} webhook: ${response.status} ${await response.text()}`);
      ids.add((await response.json()).execution_id);
      await sleep(100);
    }
    const runs = await drained(bench, [s.workflow.id], ids.size, 30_000);
    return { result, paced: { latencies, ...runTimes(runs.filter((run) => ids.has(run.id))) } };
  });
}

async function webhooks(problems) {
  const schemes = ["hub", "stripe"];
  const target = (p99) => `(target p99 < 50 ms${p99 < 50 ? ", met" : ", NOT met"})`;
  const row = (label, r) =>
    `  ${label.padEnd(34)} ${r.requests.average.toFixed(0).padStart(5)} req/s  p50 ${String(r.latency.p50).padStart(3)} ms  p99 ${String(r.latency.p99).padStart(4)} ms` +
    (r.non2xx ? `  [${r.non2xx} not 2xx]` : "");
  console.log(`\nSigned webhooks to a one-step run, ${CONNECTIONS} connections, ${SECONDS} s each, each request a fresh event, each row on a fresh hub`);
  for (const door of ["proxy", "worker"]) {
    console.log(
      door === "proxy"
        ? "  on the public port (what `npm start` serves: wrangler's dev proxy in front of the Worker):"
        : "  on the Worker's own socket (the same Worker and storage, without the dev proxy's hop):",
    );
    const health = await saturatedRow(problems, door);
    if (!health) {
      console.log("    (the Worker's own socket was not found here: /proc is read on Linux only)");
      continue;
    }
    console.log(row("GET /health", health.result));
    for (const verify of schemes) {
      const r = await saturatedRow(problems, door, verify);
      if (!r) continue;
      const p99 = r.result.latency.p99;
      console.log(`${row(`webhook, ${verify} signature -> 202`, r.result)}  p99 ${(p99 / health.result.latency.p99).toFixed(2)}x /health's ${target(p99)}`);
      console.log(
        `    under this load: accepted -> started  ${p50p99(r.times.started)};  accepted -> succeeded  ${p50p99(r.times.succeeded)}  (${r.accepted.size} runs, ${r.times.slow} started over 5 s after, ${r.times.failed} not succeeded)`,
      );
    }
  }
  console.log(`  at a steady ${STEADY_RATE} requests/s over the same ${CONNECTIONS} connections (open loop, public port):`);
  const steady = (label, r) =>
    `  ${label.padEnd(34)} ${r.rate.toFixed(0).padStart(5)} req/s  ${p50p99(r.latencies)}${r.failed ? `  [${r.failed} not 2xx]` : ""}`;
  const health = await steadyRow(problems);
  console.log(steady("GET /health", health.result));
  const healthP99 = percentile(health.result.latencies, 0.99);
  const paced = [];
  for (const verify of schemes) {
    const r = await steadyRow(problems, verify);
    const p99 = percentile(r.result.latencies, 0.99);
    console.log(`${steady(`webhook, ${verify} signature -> 202`, r.result)}  p99 ${(p99 / healthP99).toFixed(2)}x /health's ${target(p99)}`);
    paced.push([verify, r.paced]);
  }
  for (const [verify, p] of paced) {
    console.log(
      `  one at a time (${PACED_EVENTS}), ${verify}: 202 ${p50p99(p.latencies)};  accepted -> started  ${p50p99(p.started)};  accepted -> succeeded  ${p50p99(p.succeeded)}`,
    );
  }
}

async function polls(bench) {
  const feed = await startFeed();
  try {
    const agents = [];
    for (let i = 0; i < POLL_AGENTS; i++) {
      const name = `agent-${i}`;
      feed.add(name, `${name}-base`);
      const workflow = await bench.post("/v1/workflows", {
        workflow_name: `Poll ${i}`,
        description: "benchmark",
        trigger_type: "poll",
        trigger_config: {
          tool: "http_request",
          arguments: { url: feed.url(name) },
          interval_seconds: POLL_INTERVAL_SECONDS,
          items_path: "body.items",
          id_path: "id",
          emit: "each",
        },
        steps: [{ id: "note", type: "set", values: { seen: "{{input.item.id}}" } }],
      });
      const agent = await bench.post("/v1/agents/deploy", { workflow_id: workflow.id });
      agents.push({ name, workflowId: workflow.id, agentId: agent.agent_id, added: new Map() });
    }
    // An agent's second read is a poll after its baseline: items added from now on are new to every agent.
    const baselineDeadline = Date.now() + 60_000;
    while (agents.some((a) => feed.reads(a.name).length < 2)) {
      if (Date.now() > baselineDeadline) throw new Error("some polling agents did not poll twice within 60 s of their deploy");
      await sleep(200);
    }

    const start = Date.now();
    const total = Math.round(ITEMS_PER_SECOND * POLL_SECONDS);
    for (let n = 0; n < total; n++) {
      const due = start + (n * 1000) / ITEMS_PER_SECOND;
      if (due > Date.now()) await sleep(due - Date.now());
      // A random agent: in turn, each agent's items would keep one phase against its polls.
      const agent = agents[Math.floor(Math.random() * agents.length)];
      const id = `${agent.name}-new-${n}`;
      feed.add(agent.name, id);
      agent.added.set(id, Date.now());
    }
    const end = Date.now();
    // Every agent reads its feed once more after the last item, and that poll's runs end.
    while (agents.some((a) => !feed.reads(a.name).some((t) => t > end + 200)) && Date.now() < end + 4 * POLL_INTERVAL_SECONDS * 1000) await sleep(200);
    const runs = await drained(
      bench,
      agents.map((a) => a.workflowId),
      total,
      60_000,
    );

    // Polls that failed (logged in each agent's events), with why.
    const failures = new Map();
    for (const a of agents) {
      for (const e of (await bench.get(`/v1/agents/${a.agentId}/events?limit=100`)).data) {
        if (e.source !== "poll" || e.outcome !== "error") continue;
        const why = String(e.detail).replace(/^Poll failed \(.*?\): /, "");
        failures.set(why, (failures.get(why) ?? 0) + 1);
      }
    }

    // Each poll against the one before it of the same agent, while items arrived.
    const lateness = [];
    for (const a of agents) {
      const reads = feed.reads(a.name).filter((t) => t >= start && t <= end);
      for (let i = 1; i < reads.length; i++) lateness.push(reads[i] - reads[i - 1] - POLL_INTERVAL_SECONDS * 1000);
    }
    const byWorkflow = new Map(agents.map((a) => [a.workflowId, a]));
    const seen = new Map();
    const toRun = [];
    const readToRun = [];
    const queued = [];
    let unexpected = 0;
    for (const run of runs) {
      const agent = byWorkflow.get(run.workflow_id);
      const id = String(run.input_data?.item?.id);
      const key = `${agent.name}/${id}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      const addedAt = agent.added.get(id);
      if (addedAt === undefined) {
        unexpected++;
        continue;
      }
      toRun.push(Date.parse(run.created_at) - addedAt);
      const read = feed.reads(agent.name).find((t) => t >= addedAt);
      if (read !== undefined) readToRun.push(Date.parse(run.created_at) - read);
      if (run.started_at) queued.push(Date.parse(run.started_at) - Date.parse(run.created_at));
    }
    const missed = agents.flatMap((a) => [...a.added.keys()].filter((id) => !seen.has(`${a.name}/${id}`)).map((id) => `${a.name}/${id}`));
    const duplicated = [...seen].filter(([, n]) => n > 1).map(([key, n]) => `${key} ×${n}`);
    const created = runs.map((r) => Date.parse(r.created_at)).filter((t) => t >= start);
    const span = (Math.max(...created) - Math.min(...created)) / 1000;
    const inWindow = created.filter((t) => t <= end).length;
    const began = runs.filter((r) => r.started_at).map((r) => Date.parse(r.started_at));
    const beganSpan = (Math.max(...began) - Math.min(...began)) / 1000;

    console.log(
      `\nPolling: ${POLL_AGENTS} agents every ${POLL_INTERVAL_SECONDS} s, ${total} new items over ${POLL_SECONDS} s (${ITEMS_PER_SECOND}/s, each agent its own feed)`,
    );
    console.log(
      `  polls observed                               ${lateness.length} (on time, about ${POLL_AGENTS * (Math.floor(POLL_SECONDS / POLL_INTERVAL_SECONDS) - 1)})`,
    );
    console.log(`  poll lateness (previous poll + interval)     ${p50p99(lateness)}  max ${ms(Math.max(...lateness))}`);
    console.log(`  item added -> its run queued                 ${p50p99(toRun)}  (with the wait for the next poll, 2.5 s on average)`);
    console.log(`  poll read the item -> its run queued         ${p50p99(readToRun)}`);
    console.log(`  run queued -> started                        ${p50p99(queued)}`);
    console.log(
      `  runs queued per second                       ${(inWindow / ((end - start) / 1000)).toFixed(1)} while items arrived; ${runs.length} runs in ${span.toFixed(1)} s (${(runs.length / span).toFixed(1)}/s)`,
    );
    console.log(
      `  runs started per second (started_at)         ${began.length} runs in ${beganSpan.toFixed(1)} s (${(began.length / beganSpan).toFixed(1)}/s)`,
    );
    console.log(
      `  failed polls                                 ${[...failures.values()].reduce((n, x) => n + x, 0)}${[...failures].map(([why, n]) => `; ${n} × ${why}`).join("")}`,
    );
    console.log(
      `  missed ${missed.length}, started twice ${duplicated.length}, runs for other items ${unexpected}, not succeeded ${runs.filter((r) => r.status !== "succeeded").length}` +
        (missed.length || duplicated.length ? `\n  missed: ${missed.slice(0, 20).join(", ")}\n  started twice: ${duplicated.slice(0, 20).join(", ")}` : ""),
    );
  } finally {
    await feed.close();
  }
}

/** BENCH_ONLY=webhooks or BENCH_ONLY=polls runs one half. */
const ONLY = process.env.BENCH_ONLY;

async function main() {
  const load = () =>
    os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ");
  console.log(`load average at the start ${load()} (${os.cpus().length} cores)`);
  const problems = new Map();
  try {
    if (ONLY !== "polls") await webhooks(problems);
    if (ONLY !== "webhooks") await onFreshHub(problems, polls);
    console.log(`  load average at the end ${load()} (this benchmark alone keeps it near 1-2: more means other work shared the machine)`);
  } finally {
    if (problems.size) {
      console.log("  the hubs logged:");
      for (const [what, n] of problems) console.log(`    ${n} × ${what}`);
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
