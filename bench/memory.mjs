#!/usr/bin/env node
// Memory under a mixed load (npm run bench): five minutes (BENCH_MEMORY_SECONDS) of authenticated
// reads, built-in and MCP tool calls, workflow runs with and without `Prefer: wait`, on local
// `wrangler dev`. Every 10 s it samples the Worker's JavaScript heap after a forced garbage
// collection (through the DevTools protocol of the Worker's isolate, which also runs its Durable
// Objects) and, for the whole picture, the resident memory of the runtime processes (workerd,
// which also hold the local D1, queue and Durable Object storage). It prints the samples and the
// growth over the second half of the run (after warm-up) against the first sample of that half.
// Flat means the Worker's heap grows by less than 10 % over the second half (issue #12, item 5).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import WebSocket from "ws";
import { TEN_SET_STEPS, benchHub, freePort, startEverything } from "./lib.mjs";

const SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? 300);
const SAMPLE_MS = 10_000;
const CONCURRENCY = 8;

/** Resident memory (MiB) of every workerd process below `pid`. */
function runtimeMemory(pid) {
  const table = execFileSync("ps", ["-e", "-o", "pid=,ppid=,comm="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .map(([p, parent, comm]) => ({ pid: Number(p), ppid: Number(parent), comm }));
  const below = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const row of table)
      if (below.has(row.ppid) && !below.has(row.pid)) {
        below.add(row.pid);
        grew = true;
      }
  }
  let kib = 0;
  for (const row of table) {
    if (!below.has(row.pid) || row.comm !== "workerd") continue;
    const status = readFileSync(`/proc/${row.pid}/status`, "utf8");
    kib += Number(status.match(/^VmRSS:\s+(\d+)/m)?.[1] ?? 0);
  }
  return kib / 1024;
}

/** The Worker isolate's DevTools protocol: its heap after a full garbage collection, in MiB. */
async function heapProbe(port) {
  const list = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  // The inspector answers only clients that say where they come from.
  const socket = new WebSocket(list[0].webSocketDebuggerUrl, { headers: { Origin: `http://127.0.0.1:${port}` } });
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  let next = 0;
  const pending = new Map();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data));
    pending.get(message.id)?.(message.result);
    pending.delete(message.id);
  });
  const send = (method) =>
    new Promise((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params: {} }));
    });
  return {
    async heapMiB() {
      await send("HeapProfiler.collectGarbage");
      const usage = await send("Runtime.getHeapUsage");
      return usage.usedSize / 1024 / 1024;
    },
    close: () => socket.close(),
  };
}

async function main() {
  const everything = await startEverything();
  const inspectorPort = await freePort();
  const bench = await benchHub({ inspectorPort });
  try {
    const mcpUrl = everything.url;
    const connection = await (await bench.post("/v1/connections", { platform: "mcp", name: "everything", config: { url: mcpUrl } })).json();
    const workflow = await (await bench.post("/v1/workflows", { workflow_name: "Mixed", description: "bench", steps: TEN_SET_STEPS })).json();
    const authed = { Authorization: `Bearer ${bench.key}`, "Content-Type": "application/json" };
    const mix = [
      () => bench.get("/v1/me"),
      () => bench.get("/v1/workflows"),
      () => bench.post("/v1/tools/execute", { name: "math_evaluate", arguments: { expression: "6 * 7" } }),
      () => bench.post("/v1/tools/execute", { name: `mcp_${connection.connection_id}_echo`, arguments: { message: "memory" } }),
      () =>
        fetch(`${bench.hub.origin}/v1/workflows/${workflow.id}/execute`, {
          method: "POST",
          headers: { ...authed, Prefer: "wait=30" },
          body: JSON.stringify({ input_data: {} }),
        }),
      () => bench.post(`/v1/workflows/${workflow.id}/execute`, { input_data: { queued: true } }),
    ];

    const until = Date.now() + SECONDS * 1000;
    let served = 0;
    let failed = 0;
    const worker = async (n) => {
      for (let i = n; Date.now() < until; i++) {
        const response = await mix[i % mix.length]();
        await response.arrayBuffer();
        if (response.ok) served++;
        else failed++;
      }
    };
    const probe = await heapProbe(inspectorPort);
    const samples = [];
    const sample = async () => {
      const at = Math.round((SECONDS * 1000 - Math.max(0, until - Date.now())) / 1000);
      samples.push({ at, heap: await probe.heapMiB(), rss: runtimeMemory(bench.hub.child.pid) });
    };
    await sample();
    const sampler = setInterval(() => void sample(), SAMPLE_MS);
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, n) => worker(n)));
    clearInterval(sampler);
    await sample();
    probe.close();

    const secondHalf = samples.filter((s) => s.at >= SECONDS / 2);
    const growth = (key) => (secondHalf.at(-1)[key] - secondHalf[0][key]) / secondHalf[0][key];
    const line = (key) => samples.map((s) => `${s.at}: ${s[key].toFixed(key === "heap" ? 1 : 0)}`).join(", ");
    console.log(`\nMemory over ${SECONDS} s of mixed load, ${CONCURRENCY} connections`);
    console.log(`  requests served ${served} (${(served / SECONDS).toFixed(0)}/s), refused or failed ${failed}`);
    console.log(`  Worker heap after GC (s: MiB)  ${line("heap")}`);
    console.log(`  runtime processes RSS (s: MiB) ${line("rss")}`);
    const heap = growth("heap");
    console.log(
      `  Worker heap, second half: ${secondHalf[0].heap.toFixed(1)} -> ${secondHalf.at(-1).heap.toFixed(1)} MiB, ${(heap * 100).toFixed(1)} % (target < 10 %${heap < 0.1 ? ", met" : ", NOT met"})`,
    );
    console.log(
      `  runtime RSS, second half: ${secondHalf[0].rss.toFixed(0)} -> ${secondHalf.at(-1).rss.toFixed(0)} MiB, ${(growth("rss") * 100).toFixed(1)} %`,
    );
  } finally {
    await bench.stop();
    everything.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
