#!/usr/bin/env node
// Benchmark for workflow executions (npm run bench), many in flight at once on local `wrangler dev`,
// started without waiting (202) and followed to their end:
//   1. a 10-step workflow of built-in tools with one condition, against a baseline measured in the
//      same run: the same ten tool calls made one after another through POST /v1/tools/execute;
//   2. the 10-step workflow of issue #12 (nine set steps and a condition), target ≥ 100/s.
// Prints executions per second and p50/p99 latency (from created_at to finished_at).
import { TEN_SET_STEPS, benchHub, median, percentile } from "./lib.mjs";

const EXECUTIONS = Number(process.env.BENCH_EXECUTIONS ?? 100);
const BASELINE_ROUNDS = 20;

const tool = (id, name, args) => ({ id, type: "tool", tool: name, arguments: args });
const STEPS = [
  tool("id", "uuid_generate", {}),
  tool("price", "math_evaluate", { expression: "49 * 12" }),
  tool("discount", "math_evaluate", { expression: "588 * 0.15" }),
  tool("now", "datetime", { operation: "now" }),
  tool("due", "datetime", { operation: "add", amount: 14, unit: "days" }),
  {
    id: "big",
    type: "condition",
    condition: { field: "steps.price.result.result", operator: "greater_than", value: 500 },
    then: [tool("note", "text_template", { template: "Big order {{steps.id.result.uuid}}: {{steps.price.result.result}}" })],
    else: [tool("note_small", "text_template", { template: "Small order" })],
  },
  tool("pick", "json_transform", { operation: "get", data: { order: { total: 588 } }, path: "order.total" }),
  tool("ref", "uuid_generate", { count: 2 }),
  tool("tax", "math_evaluate", { expression: "588 * 0.2" }),
  tool("summary", "text_template", { template: "Order total {{steps.price.result.result}}, tax {{steps.tax.result.result}}" }),
];
// Ten steps: nine tool steps on the taken branch plus the condition itself.

async function main() {
  const bench = await benchHub();
  try {
    const created = await (await bench.post("/v1/workflows", { workflow_name: "Bench order flow", description: "benchmark", steps: STEPS })).json();

    // Baseline: the same tool calls, one after another, directly.
    const direct = STEPS.flatMap((s) => (s.type === "tool" ? [s] : s.then));
    const baseline = [];
    for (let round = 0; round < BASELINE_ROUNDS; round++) {
      const started = performance.now();
      for (const step of direct) {
        const response = await bench.post("/v1/tools/execute", { name: step.tool, arguments: step.arguments });
        if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
        await response.json();
      }
      baseline.push(performance.now() - started);
    }

    const tools = await inFlight(bench, created.id);
    console.log(`\nWorkflow executions: 10 steps (built-in tools, one condition), ${EXECUTIONS} in flight, no wait`);
    report(tools);
    console.log(`  baseline: the same 10 calls, direct          p50 ${median(baseline).toFixed(0)} ms  p99 ${percentile(baseline, 0.99).toFixed(0)} ms`);
    console.log(`  ratio (p50 execution / p50 baseline)         ${(median(tools.latencies) / median(baseline)).toFixed(2)}x`);

    // The workflow of issue #12: nine set steps and a condition, 100 in flight (target ≥ 100/s).
    const pure = await (await bench.post("/v1/workflows", { workflow_name: "Ten set steps", description: "benchmark", steps: TEN_SET_STEPS })).json();
    const sets = await inFlight(bench, pure.id);
    console.log(`\nWorkflow executions: 10 steps (set steps and a condition), ${EXECUTIONS} in flight, no wait`);
    report(sets, 100);
  } finally {
    await bench.stop();
  }
}

/** Starts EXECUTIONS runs at once (202, no wait) and follows them to their end through the list. */
async function inFlight(bench, workflowId) {
  const started = Date.now();
  const ids = await Promise.all(
    Array.from({ length: EXECUTIONS }, async () => {
      const response = await bench.post(`/v1/workflows/${workflowId}/execute`, { input_data: {} });
      if (response.status !== 202) throw new Error(`${response.status} ${await response.text()}`);
      return (await response.json()).execution_id;
    }),
  );
  const deadline = Date.now() + 10 * 60_000;
  let finished = [];
  while (Date.now() < deadline) {
    let all = [];
    let cursor;
    // Executions are listed newest first; collect every page.
    do {
      const page = await (await bench.get(`/v1/workflows/${workflowId}/executions?limit=100${cursor ? `&cursor=${cursor}` : ""}`)).json();
      all = all.concat(page.data);
      cursor = page.next_cursor;
    } while (cursor);
    finished = all.filter((e) => e.status === "succeeded" || e.status === "failed");
    if (finished.length >= ids.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const wall = Math.max(...finished.map((e) => Date.parse(e.finished_at))) - started;
  return {
    submitted: ids.length,
    finished: finished.length,
    failed: finished.filter((e) => e.status !== "succeeded").length,
    throughput: finished.length / (wall / 1000),
    latencies: finished.map((e) => Date.parse(e.finished_at) - Date.parse(e.created_at)),
  };
}

function report(run, target) {
  console.log(`  finished ${run.finished}/${run.submitted}, failed ${run.failed}`);
  console.log(
    `  throughput                                   ${run.throughput.toFixed(2)} executions/s` +
      (target ? ` (target ≥ ${target}${run.throughput >= target ? ", met" : ", NOT met"})` : ""),
  );
  console.log(
    `  latency (queued -> finished)                 p50 ${median(run.latencies).toFixed(0)} ms  p99 ${percentile(run.latencies, 0.99).toFixed(0)} ms`,
  );
}

await main();
