#!/usr/bin/env node
// Memory under a mixed load (npm run bench): five minutes (BENCH_MEMORY_SECONDS) of authenticated
// reads, built-in and MCP tool calls, workflow runs with and without `Prefer: wait`, on local
// `wrangler dev`. Every 10 s it samples the resident memory (RSS, from /proc) of the runtime
// processes (workerd) under the hub, and prints the samples, the growth over the second half of
// the run (after warm-up) against the first sample of that half, and the requests served.
// Flat means the second half grows by less than 10 % (target of issue #12, item 5).
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchHub, freePort } from "./lib.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
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

async function main() {
  const mcpPort = await freePort();
  const mcpServer = spawn(
    process.execPath,
    [
      "--import",
      path.join(root, "test/fakes/bind-loopback.mjs"),
      path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
      "streamableHttp",
    ],
    { env: { ...process.env, PORT: String(mcpPort) }, stdio: "ignore" },
  );
  const bench = await benchHub();
  try {
    const mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
    for (let i = 0; i < 100; i++) {
      try {
        await fetch(mcpUrl);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const connection = await (await bench.post("/v1/connections", { platform: "mcp", name: "everything", config: { url: mcpUrl } })).json();
    const steps = [
      ...Array.from({ length: 9 }, (_, i) => ({ id: `s${i}`, type: "set", values: { [`v${i}`]: i } })),
      {
        id: "check",
        type: "condition",
        condition: { field: "{{v8}}", operator: "equals", value: 8 },
        then: [{ id: "yes", type: "set", values: { ok: true } }],
      },
    ];
    const workflow = await (await bench.post("/v1/workflows", { workflow_name: "Mixed", description: "bench", steps })).json();
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
    const samples = [];
    const sampler = setInterval(
      () => samples.push({ at: Math.round((SECONDS * 1000 - (until - Date.now())) / 1000), mib: runtimeMemory(bench.hub.child.pid) }),
      SAMPLE_MS,
    );
    samples.push({ at: 0, mib: runtimeMemory(bench.hub.child.pid) });
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, n) => worker(n)));
    clearInterval(sampler);
    samples.push({ at: SECONDS, mib: runtimeMemory(bench.hub.child.pid) });

    const secondHalf = samples.filter((s) => s.at >= SECONDS / 2);
    const growth = (secondHalf.at(-1).mib - secondHalf[0].mib) / secondHalf[0].mib;
    console.log(`\nMemory of the runtime (workerd RSS) over ${SECONDS} s of mixed load, ${CONCURRENCY} connections`);
    console.log(`  requests served ${served} (${(served / SECONDS).toFixed(0)}/s), refused or failed ${failed}`);
    console.log(`  samples (s: MiB) ${samples.map((s) => `${s.at}: ${s.mib.toFixed(0)}`).join(", ")}`);
    console.log(
      `  second half: ${secondHalf[0].mib.toFixed(0)} -> ${secondHalf.at(-1).mib.toFixed(0)} MiB, ${(growth * 100).toFixed(1)} % (target < 10 %${growth < 0.1 ? ", met" : ", NOT met"})`,
    );
  } finally {
    await bench.stop();
    mcpServer.kill("SIGTERM");
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
