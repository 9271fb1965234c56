import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";
import { FAKE, connectModel, modelRequests, newConversation, newScenario, openai, script } from "./helpers";
import { lastRoundText, readSse, type SseEvent } from "./sse";

/**
 * A conversation turn as DESIGN §6.1 says: streamed with `Accept: text/event-stream`, numbered
 * events replayed with Last-Event-ID, stopped with POST …/stop, tool calls of one answer run
 * together, at most agent_config.max_steps model requests, and history compacted into a summary.
 */

const sendStreaming = (key: string, id: number, content: string) =>
  call(`/v1/conversations/${id}/messages`, { token: key, json: { content, provider: "openai" }, headers: { Accept: "text/event-stream" } });

/** An endpoint of the fake that answers after `delayMs`, recording when each request arrived. */
async function slowEndpoint(delayMs: number) {
  const scenario = newScenario("slow");
  const response = await fetch(`${FAKE()}/__respond/${scenario}`, {
    method: "POST",
    body: JSON.stringify({ status: 200, body: { ok: true }, delay_ms: delayMs }),
  });
  expect(response.status).toBe(204);
  return { url: (name: string) => `${FAKE()}/s/${scenario}/${name}`, requests: () => modelRequests(scenario) };
}

const names = (events: SseEvent[]) => events.map((e) => e.event);

describe("a streamed turn", () => {
  it("answers text/event-stream: numbered events, tool calls as they run, the answer's deltas, and ends after turn_finished", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("stream");
    await connectModel(key, scenario);
    const slow = await slowEndpoint(300);
    const calls = ["a", "b", "c", "d"].map((name) => ({ id: `call_${name}`, name: "http_request", args: { url: slow.url(name) } }));
    await script(scenario, [openai.toolCalls(calls), openai.text("All four pages answered.")]);
    const id = await newConversation(key);

    const response = await sendStreaming(key, id, "Fetch the four pages");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toContain("text/event-stream");
    const events = await readSse(response);

    // Every event is numbered, the numbers grow, and the stream ends after turn_finished.
    expect(events.every((e) => e.id !== null)).toBe(true);
    const ids = events.map((e) => e.id!);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(events.at(-1)!.event).toBe("turn_finished");

    const stored = events.filter((e) => e.event === "message").map((e) => e.data.message);
    expect(stored.map((m) => m.role)).toEqual(["user", "tool", "tool", "tool", "tool", "assistant"]);
    // Tool results are stored in the order the model asked for them.
    expect(stored.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["call_a", "call_b", "call_c", "call_d"]);
    const answer = stored.at(-1)!;
    expect(answer).toMatchObject({ status: "completed", content: "All four pages answered." });
    expect(events.at(-1)!.data).toEqual({ message_id: answer.id, status: "completed" });
    expect(names(events).filter((n) => n === "tool_started")).toHaveLength(4);
    expect(events.filter((e) => e.event === "tool_finished").map((e) => e.data)).toEqual(
      expect.arrayContaining(calls.map((c) => expect.objectContaining({ tool_call_id: c.id, name: "http_request", success: true }))),
    );
    // The deltas of the last round, joined, are the stored answer.
    expect(lastRoundText(events)).toBe(answer.content);

    // The four calls ran together: each reached the endpoint before the first one could be answered.
    const arrivals = (await slow.requests()).map((r: { received_at: number }) => r.received_at);
    expect(arrivals).toHaveLength(4);
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeLessThan(300);
  });

  it("resumes with Last-Event-ID (header or query) without a gap or a repeat, and starts with reset when the id is no longer held", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await newConversation(key);
    const local = (content: string) => call(`/v1/conversations/${id}/messages`, { token: key, json: { content } });
    expect((await local("math evaluate expression: 6 * 7")).status).toBe(201);
    expect((await local("math evaluate expression: 2 + 2")).status).toBe(201);

    const all = await readSse(await call(`/v1/conversations/${id}/stream?last_event_id=0`, { token: key }), (events) => names(events).includes("ready"));
    const held = all.filter((e) => e.event !== "ready");
    expect(held.length).toBeGreaterThan(6);
    expect(held.map((e) => e.id)).toEqual(held.map((_, i) => held[0]!.id! + i));
    const ready = all.at(-1)!;
    expect(ready).toMatchObject({ event: "ready", id: held.at(-1)!.id, data: { last_event_id: held.at(-1)!.id, status: "idle" } });

    const middle = held[4]!.id!;
    const resumed = await readSse(await call(`/v1/conversations/${id}/stream`, { token: key, headers: { "Last-Event-ID": String(middle) } }), (events) =>
      names(events).includes("ready"),
    );
    expect(resumed.filter((e) => e.event !== "ready")).toEqual(held.slice(5));

    // Live events after the replay follow on with the next ids.
    const live = call(`/v1/conversations/${id}/stream`, { token: key, headers: { "Last-Event-ID": String(ready.id) } }).then((response) =>
      readSse(response, (events) => names(events).includes("turn_finished")),
    );
    expect((await local("math evaluate expression: 3 * 3")).status).toBe(201);
    const next = (await live).filter((e) => e.event !== "ready");
    expect(next[0]!.id).toBe(ready.id! + 1);
    expect(next.map((e) => e.id)).toEqual(next.map((_, i) => ready.id! + 1 + i));

    // Past what is held: 1,100 more events, then a resume from the first id.
    const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(`conversation:${id}`));
    await runInDurableObject(stub, (instance) => {
      const log = (instance as unknown as { log: { append(turn: number, event: string, data: unknown): void; prune(turn: number): void } }).log;
      for (let i = 0; i < 1100; i++) log.append(0, "status", { status: "idle" });
      log.prune(0);
    });
    const reset = await readSse(await call(`/v1/conversations/${id}/stream`, { token: key, headers: { "Last-Event-ID": String(held[0]!.id) } }), (events) =>
      names(events).includes("ready"),
    );
    expect(reset[0]!.event).toBe("reset");
    expect(reset[1]!.id).toBe(reset[0]!.data.oldest_id);
    expect(reset.filter((e) => e.event === "status")).toHaveLength(1000);
  });

  it("stops a running turn: 202, the model request aborted, the answer stored as stopped; 409 when none runs", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("stop");
    await connectModel(key, scenario);
    const id = await newConversation(key);
    await expectProblem(await call(`/v1/conversations/${id}/stop`, { method: "POST", token: key }), 409, "conflict");

    await script(scenario, [{ trickle_ms: 100 } as never]);
    const stream = await sendStreaming(key, id, "Take your time");
    const events = readSse(stream);
    // The model has the request once its connection is open: stop then.
    for (let i = 0; i < 100 && (await modelRequests(scenario)).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const stopped = await call(`/v1/conversations/${id}/stop`, { method: "POST", token: key });
    expect(stopped.status).toBe(202);
    expect(await json(stopped)).toEqual({ conversation_id: id, status: "stopping" });
    const finished = (await events).at(-1)!;
    expect(finished).toMatchObject({ event: "turn_finished", data: { status: "stopped" } });
    const messages = await json(await call(`/v1/conversations/${id}/messages`, { token: key }));
    expect(messages.at(-1)).toMatchObject({ role: "assistant", status: "stopped", id: finished.data.message_id });
    await expectProblem(await call(`/v1/conversations/${id}/stop`, { method: "POST", token: key }), 409, "conflict");
  });
});

describe("a turn's bounds", () => {
  it("holds at most 5 turns per conversation: a sixth send is 429 while five wait or run", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("busy");
    await connectModel(key, scenario);
    await script(scenario, [{ trickle_ms: 100 } as never]);
    const id = await newConversation(key);
    const streams = [];
    for (let i = 0; i < 5; i++) {
      const response = await sendStreaming(key, id, `message ${i}`);
      expect(response.status).toBe(200);
      streams.push(readSse(response));
    }
    const refused = await expectProblem(await sendStreaming(key, id, "one too many"), 429, "rate_limited");
    expect(refused.detail).toContain("at most 5 turns");
    // Stopping the first lets the others run (the fake has no answer for them: they end as errors).
    for (let i = 0; i < 100 && (await modelRequests(scenario)).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await call(`/v1/conversations/${id}/stop`, { method: "POST", token: key })).status).toBe(202);
    const ends = (await Promise.all(streams)).map((events) => events.at(-1)!);
    expect(ends.map((e) => e.event)).toEqual(Array(5).fill("turn_finished"));
    expect(ends[0]!.data.status).toBe("stopped");
  });

  it("a turn cut short by a restart of the conversation's object is ended with the calls that finished", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await newConversation(key);
    expect((await call(`/v1/conversations/${id}/messages`, { token: key, json: { content: "math evaluate expression: 6 * 7" } })).status).toBe(201);
    const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(`conversation:${id}`));
    const call1 = { id: "c1", name: "uuid_generate", arguments: {}, round: 1, success: true, error_message: null, duration_ms: 3, call_id: null };
    // As the object finds it after a restart: a turn begun, one call recorded, never ended.
    await runInDurableObject(stub, async (instance, state) => {
      state.storage.sql.exec(`INSERT INTO running_turns (turn, calls) VALUES (?, ?)`, 99, JSON.stringify([call1]));
      await (instance as unknown as { endInterruptedTurns(): Promise<void> }).endInterruptedTurns();
    });
    const messages = await json(await call(`/v1/conversations/${id}/messages`, { token: key }));
    expect(messages.at(-1)).toMatchObject({ role: "assistant", status: "error", tools_called: [call1] });
    expect(messages.at(-1).error_message).toContain("cut short when the hub restarted");
    const held = await readSse(await call(`/v1/conversations/${id}/stream?last_event_id=0`, { token: key }), (events) => names(events).includes("ready"));
    expect(held.filter((e) => e.event === "turn_finished").at(-1)!.data).toEqual({ message_id: messages.at(-1).id, status: "error" });
    await runInDurableObject(stub, (_instance, state) => {
      expect(state.storage.sql.exec(`SELECT count(*) AS n FROM running_turns`).one().n).toBe(0);
    });
  });

  it("a turn that fails after a round of tool calls still records the calls that ran", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("failafter");
    await connectModel(key, scenario);
    const failure = { status: 500, body: { error: { message: "upstream exploded", type: "server_error" } } };
    await script(scenario, [openai.toolCalls([{ id: "c1", name: "uuid_generate", args: {} }]), failure, failure]);
    const id = await newConversation(key);
    const reply = await json(await call(`/v1/conversations/${id}/messages`, { token: key, json: { content: "Make an id", provider: "openai" } }));
    expect(reply.status).toBe("error");
    expect(reply.tools_called.map((c: { id: string; success: boolean }) => [c.id, c.success])).toEqual([["c1", true]]);
  });
});

describe("agent_config for turns", () => {
  async function agentConversation(key: string, config: Record<string, unknown>) {
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const deployed = await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: { provider: "openai", ...config } } });
    expect(deployed.status, await deployed.clone().text()).toBe(201);
    const { agent_id } = await json(deployed);
    const created = await call("/v1/conversations", { token: key, json: { agent_id } });
    return (await json(created)).id as number;
  }

  it("makes at most max_steps model requests, the last without tools, and refuses max_steps out of bounds", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("steps");
    await connectModel(key, scenario);
    for (const bad of [0, 51, 2.5, "3"]) {
      const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
      const refused = await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: { max_steps: bad } } });
      const problem = await expectProblem(refused, 422, "validation_failed");
      expect(problem.errors?.[0]?.field).toBe("agent_config.max_steps");
    }
    const id = await agentConversation(key, { max_steps: 2 });
    await script(scenario, [openai.toolCalls([{ id: "c1", name: "uuid_generate", args: {} }]), openai.text("Here is what I found.")]);
    const reply = await json(await call(`/v1/conversations/${id}/messages`, { token: key, json: { content: "Make ids until told to stop" } }));
    expect(reply, JSON.stringify(reply)).toMatchObject({ status: "completed", content: "Here is what I found." });
    const requests = await modelRequests(scenario);
    expect(requests).toHaveLength(2);
    expect(requests[0].body.tools.length).toBeGreaterThan(0);
    expect(requests[1].body.tools ?? []).toEqual([]);
  });

  it("replaces older history with a stored summary once it passes context_chars, keeping every message listed", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("compact");
    await connectModel(key, scenario);
    const id = await agentConversation(key, { context_chars: 4000 });
    const long = (label: string) => `${label} ${"details ".repeat(300)}`;
    await script(scenario, [
      openai.text(long("first answer")),
      openai.text(long("second answer")),
      openai.text("The summary: two long answers."),
      openai.text("Third answer."),
    ]);
    for (const content of ["first question", "second question", "third question"]) {
      const reply = await json(await call(`/v1/conversations/${id}/messages`, { token: key, json: { content } }));
      expect(reply.status).toBe("completed");
    }
    const requests = await modelRequests(scenario);
    expect(requests).toHaveLength(4);
    // The summary request was given the older turns; the turn's own request carried the summary and the newer messages.
    expect(JSON.stringify(requests[2].body.messages)).toContain("first question");
    const last = requests[3].body.messages.map((m: { role: string; content: string }) => [m.role, m.content]);
    expect(JSON.stringify(last)).not.toContain("first question");
    expect(last.some(([role, content]: string[]) => role === "system" && content!.includes("The summary: two long answers."))).toBe(true);
    expect(last.at(-1)).toEqual(["user", "third question"]);

    const messages = await json(await call(`/v1/conversations/${id}/messages`, { token: key }));
    expect(messages.filter((m: { role: string }) => m.role === "user").map((m: { content: string }) => m.content)).toEqual([
      "first question",
      "second question",
      "third question",
    ]);
    expect(messages.find((m: { status: string }) => m.status === "summary")).toMatchObject({ role: "system", content: "The summary: two long answers." });
  });
});
