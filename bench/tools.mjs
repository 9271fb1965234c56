#!/usr/bin/env node
// Benchmark for tool calls, printing medians and ratios measured in one run (npm run bench):
//   1. a built-in tool through POST /v1/tools/execute, against a bare route of the same Worker;
//   2. the same built-in tool through the hub's own MCP server (/mcp), against the REST call;
//   3. an MCP tool through the hub, against a direct MCP SDK call to the same server.
// Both sides of each pair run against the same local processes, interleaved, after a warm-up.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { benchHub, median, percentile, startEverything } from "./lib.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const WARMUP = 20;

const p95 = (xs) => percentile(xs, 0.95);

async function time(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Runs two operations (and an optional third) alternately so all see the same machine conditions. */
async function compare(label, baselineLabel, baseline, subjectLabel, subject, third) {
  for (let i = 0; i < WARMUP; i++) {
    await baseline();
    await subject();
    await third?.run();
  }
  const a = [];
  const b = [];
  const c = [];
  for (let i = 0; i < ROUNDS; i++) {
    a.push(await time(baseline));
    b.push(await time(subject));
    if (third) c.push(await time(third.run));
  }
  const ratio = median(b) / median(a);
  console.log(`\n${label} (${ROUNDS} rounds each)`);
  console.log(`  ${baselineLabel.padEnd(44)} median ${median(a).toFixed(2)} ms  p95 ${p95(a).toFixed(2)} ms`);
  console.log(`  ${subjectLabel.padEnd(44)} median ${median(b).toFixed(2)} ms  p95 ${p95(b).toFixed(2)} ms`);
  if (third) console.log(`  ${third.label.padEnd(44)} median ${median(c).toFixed(2)} ms  p95 ${p95(c).toFixed(2)} ms`);
  console.log(`  ratio (subject / baseline)                   ${ratio.toFixed(2)}x`);
  return { baseline: median(a), subject: median(b), third: third ? median(c) : undefined };
}

async function main() {
  const everything = await startEverything();
  const bench = await benchHub();
  const { hub, key } = bench;
  try {
    const mcpUrl = everything.url;
    const post = (p, body, token) =>
      fetch(`${hub.origin}${p}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    const connection = await (await post("/v1/connections", { platform: "mcp", name: "everything", config: { url: mcpUrl } }, key)).json();

    const expectOk = async (response) => {
      if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
      return response.json();
    };

    await compare(
      "Built-in tool call through the hub vs. a bare route of the same Worker",
      "GET /health (no auth, no storage)",
      () => fetch(`${hub.origin}/health`).then(expectOk),
      "POST /v1/tools/execute uuid_generate",
      () => post("/v1/tools/execute", { name: "uuid_generate", arguments: {} }, key).then(expectOk),
    );

    // The hub as an MCP server: the same built-in call through /mcp, by an SDK client connected once.
    const viaMcp = new Client({ name: "bench", version: "1.0.0" });
    await viaMcp.connect(new StreamableHTTPClientTransport(new URL(`${hub.origin}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    const served = await compare(
      "Built-in tool call through the hub's MCP server vs. the same call over REST",
      "POST /v1/tools/execute uuid_generate",
      () => post("/v1/tools/execute", { name: "uuid_generate", arguments: {} }, key).then(expectOk),
      "MCP tools/call uuid_generate on /mcp",
      () =>
        viaMcp.callTool({ name: "uuid_generate", arguments: {} }).then((r) => {
          if (r.isError) throw new Error(JSON.stringify(r.content));
        }),
    );
    const mcpRatio = served.subject / served.baseline;
    console.log(`  target ≤ 1.2x${mcpRatio <= 1.2 ? ", met" : ", NOT met"}`);
    await viaMcp.close();

    const direct = new Client({ name: "bench", version: "1.0.0" });
    await direct.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
    const echoName = `mcp_${connection.connection_id}_echo`;
    // The three are interleaved in one loop, so the subtraction below compares like with like.
    const health = () => fetch(`${hub.origin}/health`).then(expectOk);
    const mcp = await compare(
      "MCP tool call through the hub vs. a direct MCP SDK call",
      "MCP SDK client -> server (connected once)",
      () => direct.callTool({ name: "echo", arguments: { message: "bench" } }),
      `POST /v1/tools/execute ${echoName}`,
      () =>
        post("/v1/tools/execute", { name: echoName, arguments: { message: "bench" } }, key)
          .then(expectOk)
          .then((r) => {
            if (!r.success) throw new Error(r.error_message);
          }),
      { label: "GET /health (in the same loop)", run: health },
    );
    await direct.close();
    // An HTTP request to the local hub costs what /health costs before the hub does anything.
    const own = mcp.subject - mcp.baseline - mcp.third;
    console.log(
      `  the hub's own time: median through the hub - /health - direct call  ${own.toFixed(2)} ms (target ≤ 5 ms${own <= 5 ? ", met" : ", NOT met"})`,
    );
  } finally {
    await bench.stop();
    everything.stop();
  }
}

await main();
