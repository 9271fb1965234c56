import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LIVE_STREAM_MS, MAX_LIVE_STREAMS } from "../../src/conversations/conversation-object";
import type { MessageStore, NewMessage, ToolCallRecord } from "../../src/conversations/messages";
import worker from "../../src/index";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newConversation } from "./helpers";

// Untyped: the object's full RPC type is too deep for the checker here.
const conversationObjects = env.CONVERSATIONS as unknown as DurableObjectNamespace;
const stubOf = (id: number) => conversationObjects.get(conversationObjects.idFromName(`conversation:${id}`));

const message = (role: NewMessage["role"], content: string, tools: ToolCallRecord[] = []): NewMessage => ({
  role,
  content,
  status: role === "user" ? "received" : "completed",
  tokens_used: 0,
  tools_called: tools,
  tool_call_id: null,
  error_message: null,
  provider: null,
  model: null,
});

const toolCall = (id: string, expression: string): ToolCallRecord => ({
  id,
  name: "math_evaluate",
  arguments: { expression },
  round: 1,
  success: true,
  error_message: null,
  duration_ms: 1,
  call_id: null,
});

/** Writes messages straight into the conversation's object, as many turns would have. */
async function store(id: number, messages: NewMessage[]) {
  await runInDurableObject(stubOf(id), async (instance: DurableObject) => {
    const messageStore = (instance as unknown as { store: MessageStore }).store;
    for (const m of messages) messageStore.add(id, m);
  });
}

/** Reads a stream until it ends. */
async function readToEnd(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return text;
    text += decoder.decode(value);
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe("conversation quotas", () => {
  it("caps conversations per account (MAX_CONVERSATIONS_PER_USER) with 409 quota_exceeded", async () => {
    const tight = { ...env, MAX_CONVERSATIONS_PER_USER: "2" };
    const { key } = await newApiKey(await newUser());
    const create = async () => {
      const ctx = createExecutionContext();
      const request = new Request("http://hub.test/v1/conversations", {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "CF-Connecting-IP": "198.51.100.79" },
        body: "{}",
      });
      const response = await worker.fetch(request, tight as any, ctx);
      await waitOnExecutionContext(ctx);
      return response;
    };
    const first = await json(await create());
    expect((await create()).status).toBe(201);
    const refused = await expectProblem(await create(), 409, "quota_exceeded");
    expect(refused.detail).toContain("at most 2 conversations");
    // Deleting one frees a place.
    expect((await call(`/v1/conversations/${first.id}`, { method: "DELETE", token: key })).status).toBe(204);
    expect((await create()).status).toBe(201);
  });
});

describe("message history", () => {
  it("answers a bounded page without `limit`: the first 100, chronological, and pages on with after_id", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await newConversation(key);
    await store(
      id,
      Array.from({ length: 250 }, (_, i) => message(i % 2 ? "assistant" : "user", `m${i}`)),
    );
    const first = await json(await call(`/v1/conversations/${id}/messages`, { token: key }));
    expect(first.map((m: any) => m.content)).toEqual(Array.from({ length: 100 }, (_, i) => `m${i}`));
    const next = await json(await call(`/v1/conversations/${id}/messages?after_id=${first.at(-1).id}`, { token: key }));
    expect(next.map((m: any) => m.content)).toEqual(Array.from({ length: 100 }, (_, i) => `m${i + 100}`));
    const all = await json(await call(`/v1/conversations/${id}/messages?limit=1000`, { token: key }));
    expect(all).toHaveLength(250);
  });

  it("extracts a workflow from the conversation's last 200 messages only", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await newConversation(key);
    await store(id, [
      message("user", "early"),
      message("assistant", "early call", [toolCall("call_early", "1 + 1")]),
      ...Array.from({ length: 250 }, (_, i) => message(i % 2 ? "assistant" : "user", `filler ${i}`)),
      message("user", "late"),
      message("assistant", "late call", [toolCall("call_late", "2 + 2")]),
    ]);
    const response = await call("/v1/workflows/extract", { token: key, json: { conversation_id: id, workflow_name: "From the tail" } });
    expect(response.status).toBe(201);
    const workflow = await json(response);
    expect(workflow.steps.map((s: any) => s.arguments)).toEqual([{ expression: "2 + 2" }]);
  });
});

describe("the live stream", () => {
  it(`ends after ${LIVE_STREAM_MS / 60_000} minutes, so a credential checked at opening does not hold it open for ever`, async () => {
    const { key } = await newApiKey(await newUser());
    const id = await newConversation(key);
    // The object's clock is faked; its timers run in its own context, as they would for real.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const advance = (ms: number) => runInDurableObject(stubOf(id), async () => void vi.advanceTimersByTime(ms));
    const response = await call(`/v1/conversations/${id}/stream`, { token: key });
    expect(response.status).toBe(200);
    let done = false;
    const ended = readToEnd(response).finally(() => {
      done = true;
    });
    await advance(LIVE_STREAM_MS - 1_000);
    await scheduler.wait(50);
    expect(done).toBe(false);
    await advance(1_000);
    const end = await Promise.race([ended, scheduler.wait(2_000).then(() => "still open")]);
    expect(end).toContain("event: ready");
    // Its place is free again.
    const open = await runInDurableObject(stubOf(id), async (instance: DurableObject) => (instance as unknown as { clients: { size: number } }).clients.size);
    expect(open).toBe(0);
  });

  it(`serves at most ${MAX_LIVE_STREAMS} streams per conversation; one more is 429 rate_limited with Retry-After`, async () => {
    const { key } = await newApiKey(await newUser());
    const id = await newConversation(key);
    const open: Response[] = [];
    for (let i = 0; i < MAX_LIVE_STREAMS; i++) {
      const response = await call(`/v1/conversations/${id}/stream`, { token: key });
      expect(response.status, `stream ${i + 1}`).toBe(200);
      open.push(response);
    }
    const refused = await call(`/v1/conversations/${id}/stream`, { token: key });
    if (refused.status === 200) open.push(refused);
    expect(refused.status).toBe(429);
    const problem = await expectProblem(refused, 429, "rate_limited");
    expect(problem.detail).toContain(`at most ${MAX_LIVE_STREAMS} live streams`);
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(LIVE_STREAM_MS / 1000);
    // A client that goes away frees its place.
    await open.shift()!.body!.cancel();
    let reopened: Response | undefined;
    for (let tries = 0; tries < 50 && reopened?.status !== 200; tries++) {
      await scheduler.wait(20);
      reopened = await call(`/v1/conversations/${id}/stream`, { token: key });
    }
    expect(reopened!.status).toBe(200);
    open.push(reopened!);
    // Other conversations are not affected.
    const other = await newConversation(key);
    const elsewhere = await call(`/v1/conversations/${other}/stream`, { token: key });
    expect(elsewhere.status).toBe(200);
    await Promise.all([...open, elsewhere].map((r) => r.body!.cancel()));
  });
});
