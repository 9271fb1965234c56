#!/usr/bin/env node
// Speed of the `agent` step (DESIGN §6.3), a ratio against a baseline of the same run: a workflow
// of one agent step whose model (a local OpenAI-compatible server answering at once) makes 10 tool
// calls of an instant built-in tool, one per round, then answers; against a workflow of the same
// 10 calls as `tool` steps. Each run is started with `Prefer: wait` and timed from its created_at
// to its finished_at (the hub's own time, without the client's). The time the hub spends is that
// less the time it waited for the model's answers (its trace's `chat` spans: the request's trip to
// the model server and back, which no hub work shortens). Target: the agent step's time in the
// hub within 1.5× the tool steps' at p50. Knob: BENCH_RUNS (runs of each kind, default 20).
import http from "node:http";
import { benchHub, median, percentile } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const CALLS = 10;
const WARM_UP = 2;

/**
 * The model: a request holding fewer than CALLS tool results gets one more `math_evaluate` call;
 * then a short text. Streamed or not, as asked. Instant: the bench measures the hub, not a model.
 */
async function startModelServer() {
  const server = http.createServer(async (req, res) => {
    if (req.method === "GET" && req.url === "/models") {
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "bench-model", object: "model" }] }));
      return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const results = (body.messages ?? []).filter((m) => m.role === "tool").length;
    const call =
      results < CALLS
        ? { id: `call_${results}`, type: "function", function: { name: "math_evaluate", arguments: JSON.stringify({ expression: `${results} + 1` }) } }
        : undefined;
    const id = `chatcmpl-${Date.now()}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 };
    if (body.stream !== true) {
      const message = call ? { role: "assistant", content: null, tool_calls: [call] } : { role: "assistant", content: "Done." };
      res.writeHead(200, { "Content-Type": "application/json" }).end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model: body.model,
          choices: [{ index: 0, message, finish_reason: call ? "tool_calls" : "stop" }],
          usage,
        }),
      );
      return;
    }
    const chunk = (delta, finish = null) => ({
      id,
      object: "chat.completion.chunk",
      created,
      model: body.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    res.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8" });
    const frames = [chunk({ role: "assistant", content: "" })];
    if (call) frames.push(chunk({ tool_calls: [{ index: 0, ...call }] }));
    else frames.push(chunk({ content: "Done." }));
    frames.push(chunk({}, call ? "tool_calls" : "stop"), { ...chunk({}), choices: [], usage });
    res.end(`${frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join("")}data: [DONE]\n\n`);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    stop: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}

/** Runs the workflow once, waiting for its end; answers the hub's own duration of the run. */
async function timedRun(bench, workflowId) {
  const response = await fetch(`${bench.hub.origin}/v1/workflows/${workflowId}/execute`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${bench.key}`, Prefer: "wait=60" },
    body: JSON.stringify({ input_data: {} }),
  });
  const run = await response.json();
  if (run.status !== "succeeded") throw new Error(`run ${run.id} ${run.status}: ${run.error_message}`);
  return { id: run.id, ms: Date.parse(run.finished_at) - Date.parse(run.created_at) };
}

/** How long the run waited on model answers: the sum of its trace's `chat` spans (one per model request). */
async function modelWait(bench, executionId) {
  const trace = await (await bench.get(`/v1/executions/${executionId}/trace`)).json();
  const chats = trace.spans.filter((span) => span.attributes["gen_ai.operation.name"] === "chat");
  if (chats.length !== CALLS + 1) throw new Error(`expected ${CALLS + 1} chat spans, the trace has ${chats.length}`);
  return chats.reduce((total, span) => total + span.duration_ms, 0);
}

async function main() {
  const model = await startModelServer();
  const bench = await benchHub();
  try {
    const connected = await bench.post("/v1/connections", {
      platform: "openai",
      name: "Bench model",
      config: { api_key: "bench-key", base_url: model.origin, model: "bench-model" },
    });
    if (connected.status !== 201) throw new Error(`connection: ${connected.status} ${await connected.text()}`);
    const create = async (name, steps) => {
      const response = await bench.post("/v1/workflows", { workflow_name: name, description: "benchmark", steps });
      if (response.status !== 201) throw new Error(`${name}: ${response.status} ${await response.text()}`);
      return (await response.json()).id;
    };
    const agentFlow = await create("Bench agent step", [
      { id: "agent", type: "agent", prompt: "Add up.", provider: "openai", tools: ["math_evaluate"], max_steps: CALLS + 1 },
    ]);
    const toolFlow = await create(
      "Bench tool steps",
      Array.from({ length: CALLS }, (_, i) => ({ id: `add${i}`, type: "tool", tool: "math_evaluate", arguments: { expression: `${i} + 1` } })),
    );
    const agent = [];
    const agentInHub = [];
    const tools = [];
    // Interleaved, so both kinds see the same machine; the first few of each warm up.
    for (let i = 0; i < RUNS + WARM_UP; i++) {
      const a = await timedRun(bench, agentFlow);
      const t = await timedRun(bench, toolFlow);
      if (i >= WARM_UP) {
        agent.push(a.ms);
        agentInHub.push(a.ms - (await modelWait(bench, a.id)));
        tools.push(t.ms);
      }
    }
    console.log(`\nAgent step: ${CALLS} tool calls (one per round, an instant model and tool), ${RUNS} runs each, run time from created_at to finished_at`);
    console.log(`  agent step                              p50 ${median(agent).toFixed(0)} ms  p99 ${percentile(agent, 0.99).toFixed(0)} ms`);
    console.log(`  baseline: ${CALLS} tool steps               p50 ${median(tools).toFixed(0)} ms  p99 ${percentile(tools, 0.99).toFixed(0)} ms`);
    console.log(`  agent step without the model's answers  p50 ${median(agentInHub).toFixed(0)} ms  p99 ${percentile(agentInHub, 0.99).toFixed(0)} ms`);
    console.log(`  ratio with the model's answers          ${(median(agent) / median(tools)).toFixed(2)}x`);
    console.log(`  ratio in the hub (without them)         ${(median(agentInHub) / median(tools)).toFixed(2)}x (target ≤ 1.5x)`);
  } finally {
    await bench.stop();
    await model.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
