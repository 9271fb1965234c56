#!/usr/bin/env node
// Speed of a conversation turn (DESIGN §6.1), each figure a ratio against a baseline of the same run:
//   a. time to first token: a local OpenAI-compatible streaming model server whose first content
//      token comes FIRST_TOKEN_MS after the request, read directly by a client and through the hub
//      (`POST …/messages` with Accept: text/event-stream, to the first `delta` event), interleaved;
//      targets: the hub within 1.2× direct at p50 and 1.5× at p99;
//   b. a round of 4 parallel `http_request` calls to a local endpoint that answers after SLOW_MS,
//      against the same turn with 1 call; target: within 1.5×;
//   c. the tool index of the 1,000-tool catalog of bench/fixtures/tool-catalog.json, built by the
//      module of src/agent-loop/tools/ (loaded as bench/tool-search.mjs loads it), against 20
//      sequential `GET /health` of the running hub; target: the build takes less.
// Knobs: BENCH_SAMPLES (first-token samples of each kind, default 100), BENCH_TURNS (turns of each
// kind for b, default 20), BENCH_FIRST_TOKEN_MS (default 200).
import http from "node:http";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";
import { benchHub, median, percentile } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100);
const TURNS = Number(process.env.BENCH_TURNS ?? 20);
const FIRST_TOKEN_MS = Number(process.env.BENCH_FIRST_TOKEN_MS ?? 200);
/** Content pieces of a text answer, and the gap between them: a model emitting tokens. */
const PIECES = 12;
const PIECE_MS = 4;
/** How long the slow endpoint takes to answer one tool call. */
const SLOW_MS = 500;
const HEALTH_REQUESTS = 20;
const HEALTH_ROUNDS = 5;
const BUILD_ROUNDS = 10;
const WARM_UP = 3;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const ms = (x) => `${x.toFixed(1)} ms`;

/**
 * The model: answers `POST /chat/completions` as OpenAI streams it (a role chunk at once, then
 * after FIRST_TOKEN_MS the content or tool-call pieces, a finish chunk, a usage chunk, [DONE]).
 * What it answers depends on the last message: a user message "call N" gets N `http_request`
 * calls to the slow endpoint; anything else (a greeting, tool results) gets text. `GET /slow`
 * is that endpoint; `GET /models` answers a connection test.
 */
async function startModelServer() {
  let slowUrl = "";
  /** Each streamed chat request: when it arrived and when its first content went out (for the hub's breakdown). */
  const requests = [];
  const server = http.createServer(async (req, res) => {
    const arrived = performance.now();
    if (req.method === "GET" && req.url === "/slow") {
      await sleep(SLOW_MS);
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"ok":true}');
      return;
    }
    if (req.method === "GET" && req.url === "/models") {
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "bench-model", object: "model" }] }));
      return;
    }
    if (req.method !== "POST" || req.url !== "/chat/completions") {
      res.writeHead(404).end();
      return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const last = body.messages?.at(-1);
    const wanted = last?.role === "user" ? /\bcall (\d+)\b/.exec(String(last.content))?.[1] : undefined;
    if (wanted && !body.tools?.some((t) => t.function?.name === "http_request")) {
      // The bench would measure a refusal, not a round of calls: say so loudly.
      console.error("the model was not offered http_request; the tool rows would be wrong");
    }
    const calls = wanted ? Array.from({ length: Number(wanted) }, (_, i) => ({ id: `call_${Date.now()}_${i}`, url: slowUrl })) : [];
    const id = `chatcmpl-${Date.now()}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta, finishReason = null) => ({
      id,
      object: "chat.completion.chunk",
      created,
      model: body.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    });
    const text = Array.from({ length: PIECES }, (_, i) => `word${i} `);
    if (body.stream !== true) {
      const message = calls.length ? { role: "assistant", content: null, tool_calls: calls.map(toolCall) } : { role: "assistant", content: text.join("") };
      await sleep(FIRST_TOKEN_MS);
      res.writeHead(200, { "Content-Type": "application/json" }).end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model: body.model,
          choices: [{ index: 0, message, finish_reason: calls.length ? "tool_calls" : "stop" }],
          usage: { prompt_tokens: 50, completion_tokens: PIECES, total_tokens: 50 + PIECES },
        }),
      );
      return;
    }
    const record = { arrived, firstContent: undefined };
    requests.push(record);
    res.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache", Connection: "keep-alive" });
    const send = (data) => new Promise((resolve) => res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`, resolve));
    await send(chunk({ role: "assistant", content: "" }));
    await sleep(FIRST_TOKEN_MS);
    if (calls.length) {
      for (const [index, call] of calls.entries()) {
        await send(chunk({ tool_calls: [{ index, ...toolCall(call), function: { name: "http_request", arguments: "" } }] }));
        await send(chunk({ tool_calls: [{ index, function: { arguments: toolCall(call).function.arguments } }] }));
      }
    } else {
      for (const [i, piece] of text.entries()) {
        if (i > 0) await sleep(PIECE_MS);
        record.firstContent ??= performance.now();
        await send(chunk({ content: piece }));
      }
    }
    await send(chunk({}, calls.length ? "tool_calls" : "stop"));
    await send({ ...chunk({}), choices: [], usage: { prompt_tokens: 50, completion_tokens: PIECES, total_tokens: 50 + PIECES } });
    await send("[DONE]");
    res.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  slowUrl = `${origin}/slow`;
  // Kept-alive connections would hold close() open until they time out.
  const stop = () =>
    new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
  return { origin, requests, stop };
}

const toolCall = (call) => ({ id: call.id, type: "function", function: { name: "http_request", arguments: JSON.stringify({ url: call.url }) } });

/** Server-sent events of a response as they arrive: `{event, data}` with the time each was read. */
async function* eventsOf(response) {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const bytes of response.body) {
    buffered += decoder.decode(bytes, { stream: true });
    for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
      const frame = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      let event = "message";
      const data = [];
      for (const line of frame.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      if (data.length) yield { event, data: data.join("\n"), at: performance.now() };
    }
  }
}

/** Direct: from the request to the model server to its first chunk with content. */
async function directFirstToken(model) {
  const started = performance.now();
  const response = await fetch(`${model.origin}/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify({ model: "bench-model", stream: true, messages: [{ role: "user", content: "hello" }] }),
  });
  let first;
  for await (const { data, at } of eventsOf(response)) {
    if (first === undefined && data !== "[DONE]" && JSON.parse(data).choices?.[0]?.delta?.content) first = at - started;
  }
  return first;
}

/** A streamed turn through the hub: the time to its first `delta`, to its end, and its tool calls' span. */
async function hubTurn(bench, conversationId, content, model) {
  const seen = model.requests.length;
  const started = performance.now();
  const response = await fetch(`${bench.hub.origin}/v1/conversations/${conversationId}/messages`, {
    method: "POST",
    headers: { Authorization: `Bearer ${bench.key}`, "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify({ content, provider: "openai" }),
  });
  if (response.status !== 200) throw new Error(`a streamed send answered ${response.status}: ${await response.text()}`);
  const turn = { firstDelta: undefined, finished: undefined, firstToolStarted: undefined, lastToolFinished: undefined, tools: 0, status: undefined };
  for await (const { event, data, at } of eventsOf(response)) {
    if (event === "delta" && turn.firstDelta === undefined) turn.firstDelta = at - started;
    if (event === "tool_started") turn.firstToolStarted ??= at - started;
    if (event === "tool_finished") {
      turn.lastToolFinished = at - started;
      if (JSON.parse(data).success) turn.tools++;
    }
    if (event === "turn_finished") {
      turn.finished = at - started;
      turn.status = JSON.parse(data).status;
    }
  }
  if (turn.status !== "completed") throw new Error(`a turn ended ${turn.status}: look at conversation ${conversationId}'s messages`);
  // Where the time to the first delta goes: before the hub asks the model, and from the model's first token to the client.
  const asked = model.requests[seen];
  if (asked?.firstContent !== undefined && turn.firstDelta !== undefined) {
    turn.beforeModel = asked.arrived - started;
    turn.relay = started + turn.firstDelta - asked.firstContent;
  }
  return turn;
}

/** Milliseconds of `HEALTH_REQUESTS` sequential `GET /health`, the median of HEALTH_ROUNDS. */
async function healthRun(origin) {
  const rounds = [];
  for (let round = 0; round <= HEALTH_ROUNDS; round++) {
    const started = performance.now();
    for (let i = 0; i < HEALTH_REQUESTS; i++) {
      const response = await fetch(`${origin}/health`);
      if (!response.ok) throw new Error(`/health answered ${response.status}`);
      await response.arrayBuffer();
    }
    // The first round warms the connection; it is not counted.
    if (round > 0) rounds.push(performance.now() - started);
  }
  return median(rounds);
}

/** The index build, before any hub runs: the first build in this process, then the median of repeats. */
async function indexBuild() {
  const catalogPath = path.join(here, "fixtures/tool-catalog.json");
  if (!existsSync(catalogPath)) return undefined;
  const tools = await tsImport("../src/agent-loop/tools/index.ts", import.meta.url);
  const catalog = JSON.parse(readFileSync(catalogPath, "utf8"));
  const time = () => {
    const started = performance.now();
    const index = tools.buildToolIndex(catalog);
    return { ms: performance.now() - started, size: index.tools.size };
  };
  const first = time();
  const repeats = Array.from({ length: BUILD_ROUNDS }, () => time().ms);
  return { tools: catalog.length, indexed: first.size, first: first.ms, median: median(repeats) };
}

async function main() {
  const build = await indexBuild();
  const model = await startModelServer();
  const bench = await benchHub();
  try {
    const connection = await bench.post("/v1/connections", {
      platform: "openai",
      name: "Bench model",
      config: { api_key: "bench-key", base_url: model.origin, model: "bench-model" },
    });
    if (!connection.ok) throw new Error(`creating the model connection answered ${connection.status}: ${await connection.text()}`);
    const conversation = async (title) => (await (await bench.post("/v1/conversations", { title })).json()).id;

    // a. Time to first token, direct and through the hub, interleaved (the order flips each
    // sample so neither always runs just after the other).
    const chat = await conversation("First token");
    for (let i = 0; i < WARM_UP; i++) {
      await directFirstToken(model);
      await hubTurn(bench, chat, "hello", model);
    }
    const direct = [];
    const hub = [];
    const beforeModel = [];
    const relay = [];
    for (let i = 0; i < SAMPLES; i++) {
      const pair = [
        async () => direct.push(await directFirstToken(model)),
        async () => {
          const turn = await hubTurn(bench, chat, "hello", model);
          hub.push(turn.firstDelta);
          beforeModel.push(turn.beforeModel);
          relay.push(turn.relay);
        },
      ];
      if (i % 2) pair.reverse();
      for (const measure of pair) await measure();
    }

    // b. Turns with one and with four slow calls in one answer, interleaved, each kind in a
    // conversation of its own.
    const oneChat = await conversation("One call");
    const fourChat = await conversation("Four calls");
    await hubTurn(bench, oneChat, "call 1", model);
    await hubTurn(bench, fourChat, "call 4", model);
    const one = [];
    const four = [];
    for (let i = 0; i < TURNS; i++) {
      const pair = [
        async () => one.push(await hubTurn(bench, oneChat, "call 1", model)),
        async () => four.push(await hubTurn(bench, fourChat, "call 4", model)),
      ];
      if (i % 2) pair.reverse();
      for (const measure of pair) await measure();
    }
    const badRounds = [...one.filter((t) => t.tools !== 1), ...four.filter((t) => t.tools !== 4)].length;
    if (badRounds) throw new Error(`${badRounds} turns did not run all their calls successfully`);

    // c. Twenty sequential /health requests on the same hub, now idle.
    const health = await healthRun(bench.hub.origin);

    const p50 = (xs) => median(xs);
    const p99 = (xs) => percentile(xs, 0.99);
    const verdict = (ratio, target) => `${ratio.toFixed(2)}× (target ≤ ${target}×: ${ratio <= target ? "met" : "NOT met"})`;
    const span = (turns) => turns.map((t) => t.lastToolFinished - t.firstToolStarted);
    const turnTimes = (turns) => turns.map((t) => t.finished);

    console.log(`\nConversation turns (local wrangler dev; model server's first token after ${FIRST_TOKEN_MS} ms)`);
    console.log(`a. time to first token, ${SAMPLES} samples each, interleaved`);
    console.log(`  direct from the model server                 p50 ${ms(p50(direct))}  p99 ${ms(p99(direct))}`);
    console.log(`  through the hub (POST → first delta)         p50 ${ms(p50(hub))}  p99 ${ms(p99(hub))}`);
    console.log(`  of which: POST → the hub's model request     p50 ${ms(p50(beforeModel))}  p99 ${ms(p99(beforeModel))}`);
    console.log(`            first token sent → delta read      p50 ${ms(p50(relay))}  p99 ${ms(p99(relay))}`);
    console.log(`  ratio at p50                                 ${verdict(p50(hub) / p50(direct), 1.2)}`);
    console.log(`  ratio at p99                                 ${verdict(p99(hub) / p99(direct), 1.5)}`);
    console.log(`b. a turn whose model asks for ${SLOW_MS} ms http_request calls, then answers; ${TURNS} turns each, interleaved`);
    console.log(`  1 call: turn                                 p50 ${ms(p50(turnTimes(one)))}  max ${ms(Math.max(...turnTimes(one)))}`);
    console.log(`  4 calls: turn                                p50 ${ms(p50(turnTimes(four)))}  max ${ms(Math.max(...turnTimes(four)))}`);
    console.log(`  ratio of the turns at p50                    ${verdict(p50(turnTimes(four)) / p50(turnTimes(one)), 1.5)}`);
    console.log(`  the round alone (first tool_started → last tool_finished): 1 call p50 ${ms(p50(span(one)))}, 4 calls p50 ${ms(p50(span(four)))}`);
    console.log(`  ratio of the rounds at p50                   ${verdict(p50(span(four)) / p50(span(one)), 1.5)}`);
    if (build) {
      console.log(`c. the tool index of ${build.tools} tools (${build.indexed} indexed) against ${HEALTH_REQUESTS} sequential GET /health`);
      console.log(`  index build: first ${ms(build.first)}, then median of ${BUILD_ROUNDS} ${ms(build.median)}`);
      console.log(`  ${HEALTH_REQUESTS} × /health, median of ${HEALTH_ROUNDS} rounds            ${ms(health)}`);
      console.log(`  ratio, first build                           ${verdict(build.first / health, 1)}`);
      console.log(`  ratio, repeated build                        ${verdict(build.median / health, 1)}`);
    } else {
      console.log("c. skipped: bench/fixtures/tool-catalog.json is missing (node bench/tool-catalog.mjs writes it)");
    }
  } finally {
    await bench.stop();
    await model.stop();
  }
}

await main();
