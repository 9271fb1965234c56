#!/usr/bin/env node
// Throughput of the request path (npm run bench): each authenticated operation against GET /health
// of the same Worker, measured in the same run with autocannon at 10 connections. Prints req/s,
// p50 and p99 latency, the ratio to /health and the target (issue #12). Limits are raised so the
// hub answers rather than refuses; everything else (auth, rate-limit accounting, audit) is real.
import autocannon from "autocannon";
import { TEN_SET_STEPS, benchHub } from "./lib.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 10;
/** BENCH_ONLY=<regular expression> measures only the cases whose label matches (and /health). */
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, "i") : undefined;

function load(origin, { path, method = "GET", token, body, headers = {}, seconds = SECONDS }) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${origin}${path}`,
        method,
        connections: CONNECTIONS,
        duration: seconds,
        headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body ? { "Content-Type": "application/json" } : {}), ...headers },
        body: body ? JSON.stringify(body) : undefined,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

async function main() {
  const bench = await benchHub();
  const { hub, key } = bench;
  try {
    const form = (fields) =>
      fetch(`${hub.origin}/v1/auth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields),
      });
    const login = await (await bench.post("/v1/auth/login", { email: "bench@example.com", password: "benchmark password" })).json();
    const app = await (await bench.post("/v1/auth/apps", { name: "bench", redirect_uris: ["http://127.0.0.1/cb"], scopes: ["data:read"] })).json();
    const oauth = await (await form({ grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret })).json();
    await bench.post("/v1/workflows", { workflow_name: "Listed", description: "bench", steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const tenSteps = await (await bench.post("/v1/workflows", { workflow_name: "Ten steps", description: "bench", steps: TEN_SET_STEPS })).json();

    const allCases = [
      {
        label: "POST /v1/workflows/test-condition (no storage)",
        path: "/v1/workflows/test-condition",
        method: "POST",
        token: key,
        body: { condition: { field: "x", operator: "equals", value: 1 }, context: { x: 1 } },
        target: 0.67,
      },
      { label: "GET /v1/me (API key)", path: "/v1/me", token: key, target: 0.67 },
      { label: "GET /v1/me (login JWT)", path: "/v1/me", token: login.access_token, target: 0.67 },
      { label: "GET /v1/me (OAuth access token)", path: "/v1/me", token: oauth.access_token, target: 0.67 },
      { label: "GET /v1/workflows (API key)", path: "/v1/workflows", token: key, target: 0.67 },
      {
        label: "POST /v1/tools/execute (math_evaluate)",
        path: "/v1/tools/execute",
        method: "POST",
        token: key,
        body: { name: "math_evaluate", arguments: { expression: "2 * (3 + 4)" } },
        target: 0.5,
      },
      {
        label: "10-step workflow, Prefer: wait=30",
        path: `/v1/workflows/${tenSteps.id}/execute`,
        method: "POST",
        token: key,
        body: { input_data: {} },
        headers: { Prefer: "wait=30" },
        target: 0.25,
      },
    ];
    const cases = allCases.filter((c) => !ONLY || ONLY.test(c.label));
    // Warm every path briefly, workflow runs first: a run started inline that takes over a second
    // sends a backstop message that arrives about 21 s later, and those must not land in another case's
    // measurement. Then measure /health before and after the others: its mean is the baseline.
    const runsFirst = [...cases].sort((a, b) => Number(b.label.includes("workflow,")) - Number(a.label.includes("workflow,")));
    for (const c of runsFirst) await load(hub.origin, { ...c, seconds: 2 }).catch(() => undefined);
    if (cases.some((c) => c.label.includes("workflow,"))) await new Promise((resolve) => setTimeout(resolve, 25_000));
    const before = await load(hub.origin, { path: "/health" });
    const results = [];
    for (const c of cases) results.push({ ...c, result: await load(hub.origin, c) });
    const after = await load(hub.origin, { path: "/health" });
    const health = (before.requests.average + after.requests.average) / 2;

    const row = (label, r, ratio, target) =>
      `  ${label.padEnd(40)} ${r.requests.average.toFixed(0).padStart(6)} req/s  p50 ${String(r.latency.p50).padStart(4)} ms  p99 ${String(r.latency.p99).padStart(4)} ms` +
      (ratio === undefined ? "" : `  ${ratio.toFixed(2)}x /health (target ≥ ${target}x${ratio >= target ? ", met" : ", NOT met"})`) +
      (r.non2xx ? `  [${r.non2xx} non-2xx]` : "");
    console.log(`\nRequest path, ${CONNECTIONS} connections, ${SECONDS} s each`);
    console.log(row("GET /health (before)", before));
    for (const r of results) console.log(row(r.label, r.result, r.result.requests.average / health, r.target));
    console.log(row("GET /health (after)", after));
  } finally {
    await bench.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
