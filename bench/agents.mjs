#!/usr/bin/env node
// Benchmark for agent schedules (npm run bench): how late 100 interval agents fire relative to
// their due time, on local `wrangler dev`. Each run records its due time; lateness is the time
// from that due time to the execution being queued. The baseline from the same run is a
// manual execute: the time from the request to the execution being queued.
import { benchHub, median, percentile } from "./lib.mjs";

const AGENTS = Number(process.env.BENCH_AGENTS ?? 100);
const INTERVAL_SECONDS = 5;
const OBSERVE_MS = 16_000;

async function main() {
  const bench = await benchHub();
  try {
    const workflow = await (
      await bench.post("/v1/workflows", { workflow_name: "Tick", description: "benchmark", steps: [{ id: "a", type: "set", values: { x: 1 } }] })
    ).json();
    const ids = [];
    for (let i = 0; i < AGENTS; i++) ids.push((await (await bench.post("/v1/agents/deploy", { workflow_id: workflow.id })).json()).agent_id);

    // Baseline: queueing a run by hand, measured from the request.
    const manual = [];
    for (const id of ids.slice(0, 20)) {
      const sent = Date.now();
      const { execution_id } = await (await bench.post(`/v1/agents/${id}/execute`, {})).json();
      const execution = await (await bench.get(`/v1/executions/${execution_id}`)).json();
      manual.push(Math.max(0, Date.parse(execution.created_at) - sent));
    }

    const started = Date.now();
    await Promise.all(
      ids.map((agent_id) => bench.post("/v1/agents/schedule", { agent_id, schedule_config: { type: "interval", interval_seconds: INTERVAL_SECONDS } })),
    );
    await new Promise((r) => setTimeout(r, OBSERVE_MS));
    await Promise.all(
      ids.map((id) => fetch(`${bench.hub.origin}/v1/agents/${id}/schedule`, { method: "DELETE", headers: { Authorization: `Bearer ${bench.key}` } })),
    );

    const lateness = [];
    let cursor = null;
    do {
      const page = await (await bench.get(`/v1/workflows/${workflow.id}/executions?limit=100${cursor ? `&cursor=${cursor}` : ""}`)).json();
      for (const execution of page.data) {
        const due = execution.input_data?.due_at;
        if (due && Date.parse(execution.created_at) >= started) lateness.push(Date.parse(execution.created_at) - Date.parse(due));
      }
      cursor = page.next_cursor;
    } while (cursor);

    console.log(`\nAgent schedules: ${AGENTS} agents every ${INTERVAL_SECONDS} s for ${OBSERVE_MS / 1000} s (local wrangler dev)`);
    console.log(`  scheduled runs observed                      ${lateness.length}`);
    console.log(`  lateness (due -> queued)                     p50 ${median(lateness)} ms  p99 ${percentile(lateness, 0.99)} ms`);
    console.log(`  baseline: manual execute (request -> queued) p50 ${median(manual)} ms  p99 ${percentile(manual, 0.99)} ms`);
    console.log(`  ratio (p50 lateness / p50 baseline)          ${(median(lateness) / Math.max(1, median(manual))).toFixed(2)}x`);
  } finally {
    await bench.stop();
  }
}

await main();
