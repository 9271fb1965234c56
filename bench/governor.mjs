#!/usr/bin/env node
// Benchmark of the rate governor (issue #26, item 3): BENCH_RUNS workflow runs (default 20) started at
// once, each a for_each of BENCH_CALLS_PER_RUN calls (default 25: 500 calls in all) of the generic
// `http` platform's tool through one connection, to a local API (test/fakes/rate-limited-api.mjs)
// that allows BENCH_LIMIT requests per second per token (default 10) and answers 429 with
// Retry-After beyond it. The tool step retries a 429 (up to 5 attempts), as a workflow would.
// Prints failed runs (target 0), the share of requests answered 429 (target ≤ 5 %) and the
// throughput of successful calls against the limit (target ≥ 80 %), measured by the API itself.
// Not part of `npm run bench`; run it alone: `npx node bench/governor.mjs` (the project's own Node).
import { startRateLimitedApi } from "../test/fakes/rate-limited-api.mjs";
import { benchHub, freePort } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const CALLS_PER_RUN = Number(process.env.BENCH_CALLS_PER_RUN ?? 25);
const LIMIT = Number(process.env.BENCH_LIMIT ?? 10);

async function main() {
  const api = await startRateLimitedApi(await freePort(), { limit: LIMIT, windowMs: 1000, retryAfter: "seconds", fields: "x" });
  const bench = await benchHub();
  try {
    const connection = await (
      await bench.post("/v1/connections", {
        platform: "http",
        name: "Rate-limited API",
        config: { base_url: `${api.url}/t/bench`, auth_header_value: "Bearer bench-token" },
      })
    ).json();
    if (!connection.connection_id) throw new Error(`connection: ${JSON.stringify(connection)}`);
    const workflow = await (
      await bench.post("/v1/workflows", {
        workflow_name: "Governed calls",
        description: "benchmark of the rate governor",
        steps: [
          {
            id: "calls",
            type: "for_each",
            items: Array.from({ length: CALLS_PER_RUN }, (_, i) => i),
            steps: [
              {
                id: "call",
                type: "tool",
                tool: "http_call",
                arguments: { connection_id: connection.connection_id, method: "GET", path: "/items/{{item}}" },
                retry: { max_attempts: 5, delay_seconds: 1, backoff: "fixed" },
              },
            ],
          },
        ],
      })
    ).json();
    if (!workflow.id) throw new Error(`workflow: ${JSON.stringify(workflow)}`);

    const started = Date.now();
    const ids = await Promise.all(
      Array.from({ length: RUNS }, async () => {
        const response = await bench.post(`/v1/workflows/${workflow.id}/execute`, { input_data: {} });
        if (response.status !== 202) throw new Error(`${response.status} ${await response.text()}`);
        return (await response.json()).execution_id;
      }),
    );
    const ended = await untilEnded(bench, ids);
    const wall = (Date.now() - started) / 1000;

    const stats = api.stats("bench");
    const failed = ended.filter((e) => e.status !== "succeeded");
    const share429 = stats.limited / stats.requests;
    const spanSeconds = (stats.last_ok_at - stats.first_ok_at) / 1000;
    // n calls spaced over a span make n - 1 intervals.
    const throughput = (stats.ok - 1) / spanSeconds;
    const calls = RUNS * CALLS_PER_RUN;
    console.log(`\nRate governor: ${RUNS} runs × ${CALLS_PER_RUN} calls (${calls}) through one connection, API limit ${LIMIT}/s per token`);
    console.log(`  runs failed                         ${failed.length} of ${ended.length} (target 0${failed.length === 0 ? ", met" : ", NOT met"})`);
    if (failed.length) console.log(`    first failure: ${failed[0].error_message ?? failed[0].status}`);
    console.log(
      `  requests answered 429               ${stats.limited} of ${stats.requests} (${(100 * share429).toFixed(1)} %, target ≤ 5 %${share429 <= 0.05 ? ", met" : ", NOT met"})`,
    );
    console.log(`  requests refused as too early       ${stats.early} (came before the Retry-After they were given)`);
    console.log(
      `  throughput                          ${throughput.toFixed(2)} calls/s = ${((100 * throughput) / LIMIT).toFixed(0)} % of the limit (target ≥ 80 %${throughput >= 0.8 * LIMIT ? ", met" : ", NOT met"})`,
    );
    console.log(`  successful calls                    ${stats.ok} of ${calls}, over ${spanSeconds.toFixed(1)} s; all runs ended after ${wall.toFixed(1)} s`);
    if (failed.length || share429 > 0.05 || throughput < 0.8 * LIMIT) process.exitCode = 1;
  } finally {
    await bench.stop();
    await api.close();
  }
}

/** Follows the runs to their end (bounded: 10 minutes). */
async function untilEnded(bench, ids) {
  const deadline = Date.now() + 10 * 60_000;
  const ended = new Map();
  while (ended.size < ids.length) {
    if (Date.now() > deadline) throw new Error(`${ids.length - ended.size} runs still going after 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const id of ids) {
      if (ended.has(id)) continue;
      const execution = await (await bench.get(`/v1/executions/${id}`)).json();
      if (["succeeded", "failed", "cancelled"].includes(execution.status)) ended.set(id, execution);
    }
  }
  return [...ended.values()];
}

await main();
