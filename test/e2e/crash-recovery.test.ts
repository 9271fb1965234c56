import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/free-port.mjs";
import { killGroup } from "./process-group.js";
import { streamModelAnswer } from "../fakes/model-streams.mjs";
import { startPlatformFake } from "../fakes/platform-fake.mjs";

/**
 * The hub as a user runs it (`npm start`, i.e. scripts/start.mjs) is killed with SIGKILL, whole
 * process group and all (wrangler, workerd, the in-memory queue), three times while executions
 * are in flight, and started again on the same state. Every execution must still finish within
 * 60 s of the last restart, and no step that had succeeded may run again. A call that was in
 * flight at a kill may be repeated, but only with the same Idempotency-Key. The later drills kill
 * the same hub mid-loop, while a run waits for an event, and while a chat turn waits for a
 * person's approval (DESIGN §6.2), asking a fake model (test/fakes/platform-fake.mjs), and in the
 * middle of `agent` steps' loops (DESIGN §6.3), asking a model that answers by what it is told.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const EXECUTIONS = 30;
/** How long after each batch of submissions the kill comes: before, during and after the first call. */
const KILL_AFTER_MS = [300, 2500, 1200];
const KILLS = KILL_AFTER_MS.length;
/** The side-effect server answers this slowly, so kills often land with calls in flight. */
const SINK_LATENCY_MS = 800;
const DELAY_SECONDS = 2;
const DRAIN_LIMIT_MS = 60_000;
const TOOL_STEPS = ["first", "second", "third"];

interface SideEffect {
  execution: string;
  step: string;
  idempotencyKey: string | undefined;
  at: number;
}

let sink: Server;
let sinkOrigin = "";
/** The fake model server (test/fakes/platform-fake.mjs) the chat drill's conversation asks. */
let fake: { close(): Promise<void> } | undefined;
let fakeOrigin = "";
const effects: SideEffect[] = [];
/** The model the agent drill's steps ask (see AGENT_ROUNDS), and every request it had. */
let agentModel: Server | undefined;
let agentModelOrigin = "";
const agentAsked: AgentModelRequest[] = [];
let stateDir = "";
let port = 0;
let hub: ChildProcess | undefined;
/** Every process group started, so none outlives the test even if a kill went wrong. */
const groups: number[] = [];
let hubLog = "";
/** The API key the first start printed (a restart on the same state does not make another). */
let firstKey: string | undefined;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The agent drill's model: for a run's step (its prompt names the execution) it answers by how far
 * the conversation it is sent has got, not by a queue, so a request repeated after a kill (its
 * answer lost before it was checkpointed) gets the same answer again. Round r < 4 calls the sink
 * with http_request (its calls numbered 1–5 over the step, as the journal numbers them); round 4
 * answers in text.
 */
const AGENT_ROUNDS = [[1, 2], [3], [4, 5]];
const AGENT_CALLS = AGENT_ROUNDS.flat();
const AGENT_ANSWER = "All five calls are done.";
const roundOfCall = (n: number) => AGENT_ROUNDS.findIndex((round) => round.includes(n)) + 1;

interface AgentModelRequest {
  execution: string;
  /** Which request of the step's loop this is: its answers so far, plus one. */
  round: number;
  /** The results the model is told, by call id, in order. */
  toolResults: string[];
  at: number;
}

function startAgentModel(): Promise<void> {
  agentModel = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(raw);
    const messages: any[] = body.messages ?? [];
    const prompt = messages.find((m) => m.role === "user")?.content;
    const execution = /<(exe_[\w-]+)>/.exec(typeof prompt === "string" ? prompt : JSON.stringify(prompt))?.[1] ?? "?";
    const round = messages.filter((m) => m.role === "assistant").length + 1;
    agentAsked.push({ execution, round, toolResults: messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id), at: Date.now() });
    const calls = AGENT_ROUNDS[round - 1];
    const answer = chatAnswer(
      calls
        ? {
            role: "assistant",
            content: null,
            tool_calls: calls.map((n) => ({
              id: `call_${n}`,
              type: "function",
              function: {
                name: "http_request",
                arguments: JSON.stringify({ method: "POST", url: `${sinkOrigin}/e/${execution}/call-${n}`, body: { n } }),
              },
            })),
          }
        : { role: "assistant", content: AGENT_ANSWER },
    );
    if (body.stream === true) return streamModelAnswer(res, { body }, answer, "openai");
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(answer.body));
  });
  return new Promise((resolve) => agentModel!.listen(0, "127.0.0.1", () => resolve()));
}

/** Starts `node scripts/start.mjs` leading its own process group; resolves once the hub answers. */
async function startNpmStart(): Promise<string | undefined> {
  const child = spawn(process.execPath, ["scripts/start.mjs", "--var", "TOOL_RATE_LIMIT_PER_MINUTE:10000"], {
    cwd: ROOT,
    // 90 tool calls in well under a minute: the drill is about durability, not the per-minute limit.
    env: { ...process.env, PORT: String(port), HUB_STATE_DIR: stateDir },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  hub = child;
  groups.push(child.pid!);
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    hubLog = (hubLog + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  // A first start on fresh state applies every migration, which alone can take minutes on a busy machine.
  const deadline = Date.now() + 240_000;
  while (!/is running at/.test(output)) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${hubLog}`);
    if (Date.now() > deadline) throw new Error(`npm start did not come up:\n${hubLog}`);
    await sleep(100);
  }
  return output.match(/API key:\s+(ahk_test_\S+)/)?.[1];
}

/** What local D1 says about executions that did not finish, for the failure message. */
async function d1Report(ids: string[]): Promise<string> {
  const list = ids.map((id) => `'${id}'`).join(",");
  const sql =
    `select id, status, lease_until, updated_at from executions where id in (${list}); ` +
    `select execution_id, step_id, status, attempts, resume_at from execution_steps where execution_id in (${list}) order by execution_id, position`;
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["node_modules/wrangler/bin/wrangler.js", "d1", "execute", "DB", "--local", "--persist-to", stateDir, "--json", "--command", sql],
      { cwd: ROOT, env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" }, maxBuffer: 16 * 1024 * 1024 },
    );
    return (JSON.parse(stdout) as { results: unknown[] }[]).map((r) => r.results.map((row) => JSON.stringify(row)).join("\n")).join("\n\n");
  } catch (error) {
    return `(local D1 could not be read: ${(error as Error).message})`;
  }
}

beforeAll(async () => {
  // The target of every side effect: records which step of which execution called, and with
  // which idempotency key.
  sink = createServer((req, res) => {
    const [, , execution, step] = (req.url ?? "").split("/");
    effects.push({ execution: execution!, step: step!, idempotencyKey: req.headers["idempotency-key"] as string | undefined, at: Date.now() });
    req.resume();
    setTimeout(() => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end('{"ok":true}');
    }, SINK_LATENCY_MS);
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", () => resolve()));
  sinkOrigin = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const fakePort = await freePort();
  fake = await startPlatformFake(fakePort);
  fakeOrigin = `http://127.0.0.1:${fakePort}`;
  await startAgentModel();
  agentModelOrigin = `http://127.0.0.1:${(agentModel!.address() as AddressInfo).port}`;
  stateDir = mkdtempSync(path.join(os.tmpdir(), "hub-crash-"));
  port = await freePort();
}, 30_000);

afterAll(async () => {
  // Whatever happened, no wrangler or workerd is left behind.
  for (const pgid of groups) await killGroup(pgid);
  sink?.closeAllConnections();
  sink?.close();
  await fake?.close();
  agentModel?.closeAllConnections();
  agentModel?.close();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 30_000);

describe("npm start killed mid-work", () => {
  it("finishes every execution after repeated SIGKILLs of the whole process group, never repeating a succeeded step", async () => {
    const key = await startNpmStart();
    expect(key).toBeTruthy();
    firstKey = key;
    const api = apiOf(key);
    const effect = (id: string) => ({
      id,
      type: "tool",
      tool: "http_request",
      arguments: { method: "POST", url: `${sinkOrigin}/e/{{execution.id}}/${id}`, body: { execution: "{{execution.id}}", step: id } },
    });
    const workflow = await api("/v1/workflows", {
      workflow_name: "Crash drill",
      description: "a side effect, a 2 s delay, two more side effects",
      steps: [effect("first"), { id: "pause", type: "delay", seconds: DELAY_SECONDS }, effect("second"), effect("third")],
    });
    // Each round submits a batch and kills the hub a varied moment later, so every kill lands on
    // work in flight: the new batch's and whatever older batches the sweep had resumed.
    const ids: string[] = [];
    const restarts: number[] = [];
    for (const waitMs of KILL_AFTER_MS) {
      for (let i = 0; i < EXECUTIONS / KILLS; i++)
        ids.push((await api(`/v1/workflows/${workflow.id}/execute`, { input_data: { n: ids.length } })).execution_id);
      await sleep(waitMs);
      await killGroup(hub!.pid!);
      const started = Date.now();
      await startNpmStart();
      restarts.push(Date.now() - started);
    }
    const upAt = Date.now();
    const inFlight = (await api(`/v1/workflows/${workflow.id}/executions?limit=100`)).data.filter(
      (e: any) => e.status === "queued" || e.status === "running",
    ).length;
    // The drill means something only if the kills left work unfinished.
    expect(inFlight).toBeGreaterThan(0);

    // Every execution reaches a final state within 60 s of the last restart being up.
    const isFinal = (e: any) => ["succeeded", "failed", "cancelled"].includes(e.status);
    while (Date.now() - upAt < DRAIN_LIMIT_MS) {
      const { data } = await api(`/v1/workflows/${workflow.id}/executions?limit=100`);
      if (data.length === EXECUTIONS && data.every(isFinal)) break;
      await sleep(1000);
    }
    const drainSeconds = (Date.now() - upAt) / 1000;
    const final = await Promise.all(ids.map((id) => api(`/v1/executions/${id}`)));
    const unfinished = final.filter((e) => !isFinal(e));
    if (unfinished.length) {
      const report = await d1Report(unfinished.map((e) => e.id));
      expect(
        unfinished.map((e) => `${e.id}: ${e.status}`),
        `local D1:\n${report}\n--- hub output ---\n${hubLog.slice(-3000)}`,
      ).toEqual([]);
    }
    expect(
      final.map((e) => e.status),
      final.map((e) => `${e.id}: ${e.status} ${e.error_message ?? ""}`).join("\n"),
    ).toEqual(ids.map(() => "succeeded"));

    let repeated = 0;
    for (const execution of final) {
      const mine = effects.filter((e) => e.execution === execution.id);
      const callsOf = (step: string) => mine.filter((e) => e.step === step);
      for (const record of execution.steps) {
        expect(record.status, `${execution.id} ${record.step_id}`).toBe("succeeded");
        if (record.type !== "tool") continue;
        const calls = callsOf(record.step_id);
        expect(calls.length, `${execution.id} ${record.step_id}: calls seen`).toBeGreaterThanOrEqual(1);
        // Each attempt is checkpointed before its call, so more calls than attempts would mean
        // a call nobody accounted for.
        expect(calls.length, `${execution.id} ${record.step_id}: calls vs attempts`).toBeLessThanOrEqual(record.attempts);
        // Every call of one step carries one key, <execution_id>:<step_id>:<item>, so a target
        // that honours it acts once however often the call is repeated.
        const keys = new Set(calls.map((c) => c.idempotencyKey));
        expect(keys.size, `${execution.id} ${record.step_id}: keys ${[...keys].join(", ")}`).toBe(1);
        expect([...keys][0]).toMatch(new RegExp(`^${execution.id}:${record.step_id}:\\d+$`));
        repeated += calls.length - 1;
      }
      // Order: a step starts only once the one before it is checkpointed succeeded, so no call
      // of an earlier step may come after the first call of a later one (that would be a
      // succeeded step run again), and the delay separates the first step from the second.
      for (let i = 1; i < TOOL_STEPS.length; i++) {
        const lastBefore = Math.max(...callsOf(TOOL_STEPS[i - 1]!).map((c) => c.at));
        const firstAfter = Math.min(...callsOf(TOOL_STEPS[i]!).map((c) => c.at));
        expect(lastBefore, `${execution.id}: ${TOOL_STEPS[i - 1]} called after ${TOOL_STEPS[i]}`).toBeLessThan(firstAfter);
      }
      const gap = Math.min(...callsOf("second").map((c) => c.at)) - Math.max(...callsOf("first").map((c) => c.at));
      expect(gap, `${execution.id}: the delay was cut short`).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000);
    }
    console.log(
      `crash drill: ${EXECUTIONS} executions, ${KILLS} kills, restarts took ${restarts.map((ms) => (ms / 1000).toFixed(1)).join(" / ")} s, ` +
        `${inFlight} unfinished at the last restart, all finished ${drainSeconds.toFixed(1)} s after it, ` +
        `${effects.length} side effects for ${EXECUTIONS * TOOL_STEPS.length} tool steps (${repeated} repeated, each with its step's idempotency key)`,
    );
  }, 300_000);

  it("a loop and an approval survive SIGKILLs: finished items never run again, a waiting run waits on", async () => {
    // The hub the first drill left running is killed, mid-loop and then mid-wait.
    const key = await startOrReuse();
    const api = apiOf(key);
    const call = (id: string, url: string) => ({ id, type: "tool", tool: "http_request", arguments: { method: "POST", url, body: {} } });
    const workflow = await api("/v1/workflows", {
      workflow_name: "Loop and approval drill",
      description: "six calls, two at a time, then an approval, then one more call",
      steps: [
        {
          id: "each",
          type: "for_each",
          items: [0, 1, 2, 3, 4, 5],
          concurrency: 2,
          steps: [call("visit", `${sinkOrigin}/e/{{execution.id}}/visit-{{index}}`)],
        },
        { id: "approve", type: "wait_for_event", event: "go", timeout_seconds: 3600 },
        call("after", `${sinkOrigin}/e/{{execution.id}}/after`),
      ],
    });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await api(`/v1/workflows/${workflow.id}/execute`, {})).execution_id);
    // Mid-loop: items take 0.8 s each, two at a time.
    await sleep(1500);
    await killGroup(hub!.pid!);
    await startNpmStart();
    const statusOf = async () => Promise.all(ids.map(async (id) => (await api(`/v1/executions/${id}`)).status as string));
    const until = async (wanted: string) => {
      const deadline = Date.now() + DRAIN_LIMIT_MS;
      while (Date.now() < deadline && !(await statusOf()).every((status) => status === wanted)) await sleep(500);
      expect(await statusOf(), `local D1:\n${await d1Report(ids)}`).toEqual(ids.map(() => wanted));
    };
    await until("waiting");
    // Mid-wait: nothing is running, so nothing may be lost either.
    await killGroup(hub!.pid!);
    await startNpmStart();
    for (const id of ids) await api(`/v1/executions/${id}/events`, { event: "go", payload: { by: "drill" } });
    await until("succeeded");

    for (const id of ids) {
      const execution = await api(`/v1/executions/${id}`);
      const mine = effects.filter((e) => e.execution === id);
      for (const record of execution.steps.filter((r: any) => r.type === "tool")) {
        const target = record.item === null ? record.step_id : `${record.step_id}-${record.item}`;
        const calls = mine.filter((e) => e.step === target);
        expect(calls.length, `${id} ${target}: calls seen`).toBeGreaterThanOrEqual(1);
        // A finished item is never called again; one cut off mid-call is repeated with its own key.
        expect(calls.length, `${id} ${target}: calls vs attempts`).toBeLessThanOrEqual(record.attempts);
        expect(new Set(calls.map((c) => c.idempotencyKey)), `${id} ${target}`).toEqual(new Set([`${id}:${record.step_id}:${record.item ?? 0}`]));
      }
      expect(execution.steps.filter((r: any) => r.step_id === "visit")).toHaveLength(6);
      expect(execution.steps.find((r: any) => r.step_id === "approve").result).toEqual({ by: "drill" });
    }
  }, 300_000);

  it("a chat turn waiting on an approval survives SIGKILLs: still waiting after a restart, goes on once approved, its call run once", async () => {
    // DESIGN §6.2: the waiting turn lives in the conversation's object, the approval in D1.
    const key = await startOrReuse();
    const api = apiOf(key);
    const scenario = `chatdrill${randomUUID().replace(/-/g, "")}`;
    const chatRequests = async (): Promise<any[]> =>
      ((await (await fetch(`${fakeOrigin}/__requests/${scenario}`)).json()) as any[]).filter((r) => r.method === "POST" && r.path === "/chat/completions");
    // The model's first answer calls a tool the account asks about and one it allows; once told
    // both results, it answers in text.
    const scripted = await fetch(`${fakeOrigin}/__script/${scenario}`, {
      method: "POST",
      body: JSON.stringify([
        chatAnswer({
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_math", type: "function", function: { name: "math_evaluate", arguments: JSON.stringify({ expression: "6 * 7" }) } },
            {
              id: "call_text",
              type: "function",
              function: { name: "text_template", arguments: JSON.stringify({ template: "Hello {{name}}", values: { name: "drill" } }) },
            },
          ],
        }),
        chatAnswer({ role: "assistant", content: "6 * 7 is 42, and hello to the drill." }),
      ]),
    });
    expect(scripted.status).toBe(204);
    await api("/v1/connections", {
      platform: "openai",
      name: "Drill model",
      config: { api_key: "sk-test-0123456789abcdef", base_url: `${fakeOrigin}/s/${scenario}`, model: "fake-gpt" },
    });
    expect((await request(key, "PUT", "/v1/me/tool-policies", { rules: [{ tool: "math_evaluate", action: "ask" }] })).status).toBe(200);
    const conversation: number = (await api("/v1/conversations", {})).id;
    const send = (content: string) => request(key, "POST", `/v1/conversations/${conversation}/messages`, { content, provider: "openai" });

    const sent = await send("Work out 6 * 7 and greet the drill");
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const waiting = sent.body;
    expect(waiting).toMatchObject({ role: "assistant", status: "awaiting_approval", pending_approvals: [expect.stringMatching(/^apr_/)] });
    const approval: string = waiting.pending_approvals[0];
    expect(waiting.tools_called.map((c: any) => [c.id, c.success, c.approval_id ?? null])).toEqual([
      ["call_math", false, approval],
      ["call_text", true, null],
    ]);
    const toolMessages = (detail: any) => detail.messages.filter((m: any) => m.role === "tool").map((m: any) => [m.tool_call_id, m.content]);
    // The allowed call ran and its result is stored; the held one has none yet.
    expect(toolMessages(await api(`/v1/conversations/${conversation}`))).toEqual([["call_text", expect.stringContaining("Hello drill")]]);
    expect(await chatRequests()).toHaveLength(1);

    // Killed while the turn waits: nothing is running, so nothing may be lost either.
    const restarts: number[] = [];
    const restart = async () => {
      await killGroup(hub!.pid!);
      const started = Date.now();
      await startNpmStart();
      restarts.push(Date.now() - started);
    };
    await restart();
    expect(await api(`/v1/approvals/${approval}`)).toMatchObject({ id: approval, status: "pending", tool: "math_evaluate", conversation_id: conversation });
    expect(await api(`/v1/conversations/${conversation}`)).toMatchObject({ status: "awaiting_approval", state: "awaiting_approval" });
    const refused = await send("Anything else?");
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(await chatRequests()).toHaveLength(1);

    const decided = await request(key, "POST", `/v1/approvals/${approval}/decision`, { decision: "approve" });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body).toMatchObject({ id: approval, status: "approved" });
    // The turn goes on by itself in the conversation's object.
    const approvedAt = Date.now();
    let detail = await api(`/v1/conversations/${conversation}`);
    for (const deadline = Date.now() + DRAIN_LIMIT_MS; detail.status !== "idle" && Date.now() < deadline; ) {
      await sleep(200);
      detail = await api(`/v1/conversations/${conversation}`);
    }
    expect(detail.status, `the turn did not go on after the approval\n--- hub output ---\n${hubLog.slice(-3000)}`).toBe("idle");
    const wentOnSeconds = (Date.now() - approvedAt) / 1000;
    expect(detail.messages.at(-1)).toMatchObject({ role: "assistant", status: "completed", content: "6 * 7 is 42, and hello to the drill." });
    const answered = detail.messages.find((m: any) => m.id === waiting.id);
    expect(answered).toMatchObject({ status: "completed" });
    expect(answered.pending_approvals).toBeUndefined();
    expect(answered.tools_called[0]).toMatchObject({ id: "call_math", success: true, approval_id: approval });
    expect(toolMessages(detail)).toEqual([
      ["call_text", expect.stringContaining("Hello drill")],
      ["call_math", expect.stringContaining("42")],
    ]);
    // The model was asked once more, and heard both results in its own order.
    const asked = await chatRequests();
    expect(asked).toHaveLength(2);
    expect(asked[1].body.messages.filter((m: any) => m.role === "tool").map((m: any) => [m.tool_call_id, m.content])).toEqual([
      ["call_math", expect.stringContaining("42")],
      ["call_text", expect.stringContaining("Hello drill")],
    ]);
    // The audit log holds each call of the turn once: the approved one ran exactly once. (A
    // call's record is written just after it, so it may land a moment after the turn is idle.)
    const callsOfTurn = async () =>
      ((await api("/v1/audit-logs?limit=100")).data as any[])
        .filter((r) => r.source === `conversation:${conversation}`)
        .map((r) => [r.tool, r.outcome])
        .sort();
    let audited = await callsOfTurn();
    for (const deadline = Date.now() + 10_000; audited.length < 2 && Date.now() < deadline; audited = await callsOfTurn()) await sleep(200);
    expect(audited).toEqual([
      ["math_evaluate", "success"],
      ["text_template", "success"],
    ]);

    // Killed once more after the turn finished: nothing of it runs again. The object looks for a
    // waiting turn as it starts (its alarm 1 s later), so a few seconds after it is touched show it.
    const messageCount = detail.messages.length;
    await restart();
    const watchedFrom = Date.now();
    do {
      const now = await api(`/v1/conversations/${conversation}`);
      expect(now.status).toBe("idle");
      expect(now.messages).toHaveLength(messageCount);
      await sleep(250);
    } while (Date.now() - watchedFrom < 3000);
    expect(await chatRequests()).toHaveLength(2);
    expect(await api(`/v1/approvals/${approval}`)).toMatchObject({ status: "approved" });
    expect(await callsOfTurn()).toHaveLength(2);
    console.log(
      `chat approval drill: restarts took ${restarts.map((ms) => (ms / 1000).toFixed(1)).join(" / ")} s; the approval was still pending and ` +
        `the turn waiting after the first, the turn went on ${wentOnSeconds.toFixed(1)} s after the approval, and nothing ran again after the second`,
    );
  }, 300_000);

  it("agent steps survive SIGKILLs mid-loop: each goes on from its last checkpoint, a call cut short runs again with its key, a finished one never", async () => {
    // DESIGN §6.3: the step's running record holds its journal, checkpointed after each answer and tool result.
    const key = await startOrReuse();
    // What the drill adds on the hub it shares (a start of its own is not counted).
    const drillStart = Date.now();
    const api = apiOf(key);
    // The account's newest openai connection is the one a step's `provider: "openai"` asks.
    await api("/v1/connections", {
      platform: "openai",
      name: "Agent drill model",
      config: { api_key: "sk-test-0123456789abcdef", base_url: `${agentModelOrigin}/v1`, model: "fake-gpt" },
    });
    const workflow = await api("/v1/workflows", {
      workflow_name: "Agent drill",
      description: "an agent step calling the sink over three rounds, then answering",
      steps: [{ id: "think", type: "agent", prompt: "Make the calls of run <{{execution.id}}>", provider: "openai", tools: ["http_request"] }],
    });
    const ids: string[] = [];
    const submit = async (count: number) => {
      for (let i = 0; i < count; i++) ids.push((await api(`/v1/workflows/${workflow.id}/execute`, {})).execution_id);
    };
    const until = async (what: string, seen: () => boolean) => {
      for (const deadline = Date.now() + DRAIN_LIMIT_MS; !seen(); await sleep(50))
        if (Date.now() > deadline) throw new Error(`never saw ${what}\nlocal D1:\n${await d1Report(ids)}\n--- hub output ---\n${hubLog.slice(-3000)}`);
    };
    /** Each kill's window: from just before the SIGKILL to the group being gone. */
    const kills: { from: number; to: number }[] = [];
    const restarts: number[] = [];
    const killAndRestart = async () => {
      const from = Date.now();
      await killGroup(hub!.pid!);
      kills.push({ from, to: Date.now() });
      await startNpmStart();
      restarts.push(Date.now() - kills.at(-1)!.to);
    };

    // Each kill lands on a batch of runs started since the hub came up (a resumed run waits for the
    // sweep, some 35 s after a start): its first run a round ahead of the two started once it
    // made its first call, so the kill finds them at different points of their loops.
    const batch = async (kill: (e: SideEffect) => boolean, killAfterMs: number) => {
      const from = ids.length;
      await submit(1);
      const lead = ids[from]!;
      await until("the batch's first call", () => effects.some((e) => e.execution === lead));
      await submit(2);
      await until("the kill's moment", () => effects.some((e) => e.execution === lead && kill(e)));
      await sleep(killAfterMs);
      await killAndRestart();
    };
    // First kill: the lead run's round-2 call in flight (the sink takes 0.8 s), the others' round 1.
    await batch((e) => e.step === "call-3", 300);
    // Second kill: the lead run's round-3 calls in flight, the others' round 2; the first batch is
    // still waiting to be resumed.
    await batch((e) => roundOfCall(Number(e.step.slice(5))) === 3, 500);
    const upAt = Date.now();
    // One request a poll: the credential may make 600 a minute.
    const statuses = async () => {
      const { data } = await api(`/v1/workflows/${workflow.id}/executions?limit=100`);
      return ids.map((id) => data.find((e: any) => e.id === id)?.status as string);
    };
    const unfinishedAtRestart = (await statuses()).filter((status) => status === "queued" || status === "running").length;
    // The drill means something only if the last kill left loops unfinished.
    expect(unfinishedAtRestart).toBeGreaterThan(0);

    // Every run succeeds within 60 s of the last restart being up.
    let now = await statuses();
    while (Date.now() - upAt < DRAIN_LIMIT_MS && !now.every((status) => status === "succeeded")) {
      await sleep(500);
      now = await statuses();
    }
    const drainSeconds = (Date.now() - upAt) / 1000;
    expect(now, `local D1:\n${await d1Report(ids)}\n--- hub output ---\n${hubLog.slice(-3000)}`).toEqual(ids.map(() => "succeeded"));

    const killedBetween = (earlier: number, later: number) => kills.some((kill) => kill.to > earlier && kill.from < later);
    let repeatedCalls = 0;
    let repeatedRequests = 0;
    for (const id of ids) {
      const execution = await api(`/v1/executions/${id}`);
      const [step] = execution.steps;
      const finishedAt = Date.parse(step.finished_at);
      // Its result lists every call once, in the model's order, each answered by the sink.
      expect(step).toMatchObject({ step_id: "think", type: "agent", status: "succeeded" });
      expect(step.result).toMatchObject({ text: AGENT_ANSWER, steps: AGENT_ROUNDS.length + 1 });
      expect(
        step.result.tool_calls.map((c: any) => [c.name, c.arguments.url, c.success, c.result?.body]),
        id,
      ).toEqual(AGENT_CALLS.map((n) => ["http_request", `${sinkOrigin}/e/${id}/call-${n}`, true, { ok: true }]));
      // What it spent: one answer per round, none counted twice (a request lost at a kill was never checkpointed).
      const usage = { input_tokens: 100 * (AGENT_ROUNDS.length + 1), output_tokens: 20 * (AGENT_ROUNDS.length + 1), model: "fake-gpt" };
      expect(step.usage, id).toMatchObject(usage);
      expect(step.result.usage, id).toMatchObject(usage);
      expect(step.tokens_used).toBe(usage.input_tokens + usage.output_tokens);

      // The sink saw each call; every time with its key <execution>:<step>:<n>; again only after a
      // kill cut it short (a finished call never runs again), and never once a later round began.
      const calls = effects.filter((e) => e.execution === id);
      const firstOfRound = (round: number) => Math.min(...calls.filter((c) => roundOfCall(Number(c.step.slice(5))) === round).map((c) => c.at));
      for (const n of AGENT_CALLS) {
        const seen = calls.filter((c) => c.step === `call-${n}`);
        expect(seen.length, `${id} call ${n}: calls seen`).toBeGreaterThanOrEqual(1);
        expect(new Set(seen.map((c) => c.idempotencyKey)), `${id} call ${n}`).toEqual(new Set([`${id}:think:${n}`]));
        for (let i = 1; i < seen.length; i++) expect(killedBetween(seen[i - 1]!.at, seen[i]!.at), `${id} call ${n} repeated with no kill between`).toBe(true);
        const round = roundOfCall(n);
        if (round < AGENT_ROUNDS.length)
          expect(Math.max(...seen.map((c) => c.at)), `${id} call ${n} ran after round ${round + 1} began`).toBeLessThan(firstOfRound(round + 1));
        repeatedCalls += seen.length - 1;
      }
      expect(calls.length, `${id}: calls nobody asked for`).toBe(calls.filter((c) => AGENT_CALLS.some((n) => c.step === `call-${n}`)).length);

      // The model was asked for each round; again only for a request in flight at a kill (at most
      // one more per kill), and never for a round whose answer had been checkpointed: no request
      // of a round once its calls began (or, for the last, once the step finished), none going back.
      const asked = agentAsked.filter((r) => r.execution === id);
      expect(
        asked.map((r) => r.round),
        `${id}: rounds asked`,
      ).toEqual([...asked.map((r) => r.round)].sort((a, b) => a - b));
      expect(new Set(asked.map((r) => r.round)), id).toEqual(new Set([1, 2, 3, 4]));
      expect(asked.length, `${id}: model requests`).toBeLessThanOrEqual(AGENT_ROUNDS.length + 1 + kills.length);
      for (let i = 1; i < asked.length; i++)
        if (asked[i]!.round === asked[i - 1]!.round)
          expect(killedBetween(asked[i - 1]!.at, asked[i]!.at), `${id} round ${asked[i]!.round} asked again with no kill between`).toBe(true);
      for (const request of asked) {
        const answeredBy = request.round <= AGENT_ROUNDS.length ? firstOfRound(request.round) : finishedAt;
        expect(request.at, `${id}: round ${request.round} asked after its answer was acted on`).toBeLessThan(answeredBy);
      }
      // Each request told the model every result so far, in order, whatever restarts came between.
      for (const request of asked)
        expect(request.toolResults, `${id} round ${request.round}`).toEqual(
          AGENT_ROUNDS.slice(0, request.round - 1)
            .flat()
            .map((n) => `call_${n}`),
        );
      repeatedRequests += asked.length - (AGENT_ROUNDS.length + 1);
    }
    // The first kill came 0.3 s into a 0.8 s call: that call was cut short and ran again.
    expect(repeatedCalls).toBeGreaterThan(0);
    console.log(
      `agent drill: ${ids.length} runs of ${AGENT_CALLS.length} calls over ${AGENT_ROUNDS.length + 1} model rounds, ${kills.length} kills, ` +
        `restarts took ${restarts.map((ms) => (ms / 1000).toFixed(1)).join(" / ")} s, ${unfinishedAtRestart} unfinished at the last restart, ` +
        `all succeeded ${drainSeconds.toFixed(1)} s after it; ${repeatedCalls} calls repeated (each with its key), ${repeatedRequests} model requests repeated; ` +
        `${((Date.now() - drillStart) / 1000).toFixed(1)} s on the running hub`,
    );
  }, 300_000);

  it("debounced starts survive a SIGKILL in their window: one run, with the last input, under every start's execution_id", async () => {
    // DESIGN §6.5 "Flow control": the window's run is a queued row from its first start, each
    // later start replaces its input in one write, and the sweep runs it once it is due.
    const key = await startOrReuse();
    const api = apiOf(key);
    const DEBOUNCE_SECONDS = 5;
    const workflow = await api("/v1/workflows", {
      workflow_name: "Debounce drill",
      description: "starts of one customer collapse into one run, which calls the sink once",
      settings: { debounce: { key: "{{input.customer}}", seconds: DEBOUNCE_SECONDS } },
      steps: [
        {
          id: "notify",
          type: "tool",
          tool: "http_request",
          arguments: { method: "POST", url: `${sinkOrigin}/e/{{execution.id}}/notify`, body: { n: "{{input.n}}" } },
        },
      ],
    });
    const answers: string[] = [];
    let lastStartAt = 0;
    for (const n of [1, 2, 3, 4]) {
      if (n > 1) await sleep(300);
      lastStartAt = Date.now();
      answers.push((await api(`/v1/workflows/${workflow.id}/execute`, { input_data: { customer: "acme", n } })).execution_id);
    }
    // Inside the window: the run is waiting for its time, and only D1 knows of it.
    await killGroup(hub!.pid!);
    await startNpmStart();

    expect(new Set(answers).size).toBe(1);
    const id = answers[0]!;
    const deadline = Date.now() + DRAIN_LIMIT_MS;
    let run = await api(`/v1/executions/${id}`);
    while (Date.now() < deadline && run.status !== "succeeded" && run.status !== "failed") {
      await sleep(500);
      run = await api(`/v1/executions/${id}`);
    }
    expect(run.status, `local D1:\n${await d1Report([id])}`).toBe("succeeded");
    expect(run.input_data).toEqual({ customer: "acme", n: 4 });
    // It waited out the window after the last start, kill or not.
    expect(Date.parse(run.started_at)).toBeGreaterThanOrEqual(lastStartAt + DEBOUNCE_SECONDS * 1000);
    const runs = (await api(`/v1/workflows/${workflow.id}/executions?limit=100`)).data;
    expect(runs.map((e: any) => e.id)).toEqual([id]);
    const calls = effects.filter((e) => e.execution === id);
    expect(calls.map((c) => c.step)).toEqual(["notify"]);
  }, 300_000);
});

/** GETs (no body) and POSTs to the hub on `port` with `key`, answering the parsed JSON; a non-2xx throws. */
function apiOf(key: string | undefined) {
  return async (pathname: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port}${pathname}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${pathname}: ${response.status} ${text}`);
    return JSON.parse(text);
  };
}

/** Any method, with or without a body, on the hub on `port` with `key`: the status and the parsed JSON (null for none). */
async function request(key: string | undefined, method: string, pathname: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${port}${pathname}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** An OpenAI chat-completions answer of the fake model carrying `message`. */
function chatAnswer(message: Record<string, unknown>) {
  return {
    body: {
      id: `chatcmpl-${randomUUID()}`,
      object: "chat.completion",
      created: 1763800000,
      model: "fake-gpt",
      choices: [{ index: 0, message, finish_reason: message.tool_calls ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    },
  };
}

/** The hub still running from the drill before (with the key it printed), or a fresh one on the same state. */
async function startOrReuse(): Promise<string | undefined> {
  if (hub && hub.exitCode === null && firstKey) return firstKey;
  return (await startNpmStart()) ?? firstKey;
}
