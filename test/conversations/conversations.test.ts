import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { connectMcp, newConversation } from "./helpers";

const send = (key: string, id: number, content: string) => call(`/v1/conversations/${id}/messages`, { token: key, json: { content } });

describe("the local provider", () => {
  it("calls a tool only when it can fill the required arguments, then reports the result without pretending to be a model", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await newConversation(key);
    const reply = await json(await send(key, id, "math evaluate expression: 2 + 3 * 4"));
    expect(reply).toMatchObject({ role: "assistant", status: "completed", provider: "local", model: "local-tool-router" });
    expect(reply.tools_called).toEqual([expect.objectContaining({ name: "math_evaluate", arguments: { expression: "2 + 3 * 4" }, success: true })]);
    expect(reply.content).toContain('"result":14');
    expect(reply.content).toContain("local provider");
    expect(reply.tokens_used).toBeGreaterThan(0);
    const messages = await json(await call(`/v1/conversations/${id}/messages`, { token: key }));
    expect(messages.map((m: any) => m.role)).toEqual(["user", "tool", "assistant"]);
    expect(messages[1].tool_call_id).toBe(reply.tools_called[0].id);
  });

  it("runs an MCP tool named in the message with a quoted argument", async () => {
    const { key } = await newApiKey(await newUser());
    const mcpId = await connectMcp(key);
    const id = await newConversation(key);
    const reply = await json(await send(key, id, 'please echo "spring campaign is live"'));
    expect(reply.tools_called).toEqual([
      expect.objectContaining({ name: `mcp_${mcpId}_echo`, arguments: { message: "spring campaign is live" }, success: true }),
    ]);
    expect(reply.content).toContain("spring campaign is live");
  });

  it("says what is missing instead of guessing, and calls nothing", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await newConversation(key);
    const missing = await json(await send(key, id, "please evaluate some math for me"));
    expect(missing.tools_called).toEqual([]);
    expect(missing.content).toContain("math_evaluate");
    expect(missing.content).toContain("`expression`");
    const nothing = await json(await send(key, id, "zebra quantum lighthouse"));
    expect(nothing.tools_called).toEqual([]);
    expect(nothing.content).toContain("no language model");
    const roles = (await json(await call(`/v1/conversations/${id}/messages`, { token: key }))).map((m: any) => m.role);
    expect(roles).toEqual(["user", "assistant", "user", "assistant"]);
  });
});

describe("conversations", () => {
  it("processes messages sent at once one after another, never interleaved", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await newConversation(key);
    const expressions = ["1 + 1", "2 + 2", "3 + 3", "4 + 4"];
    const replies = await Promise.all(expressions.map((e) => send(key, id, `math evaluate expression: ${e}`).then(json)));
    expect(replies.every((r: any) => r.status === "completed")).toBe(true);

    const messages = await json(await call(`/v1/conversations/${id}/messages`, { token: key }));
    expect(messages).toHaveLength(12);
    for (let turn = 0; turn < 4; turn++) {
      const [user, tool, assistant] = messages.slice(turn * 3, turn * 3 + 3);
      expect([user.role, tool.role, assistant.role]).toEqual(["user", "tool", "assistant"]);
      // Each turn's tool result and answer belong to that turn's question.
      const expected: Record<string, number> = { "1 + 1": 2, "2 + 2": 4, "3 + 3": 6, "4 + 4": 8 };
      expect(JSON.parse(tool.content)).toEqual({ result: expected[user.content.split(": ")[1]] });
      expect(assistant.tools_called[0].id).toBe(tool.tool_call_id);
    }
  });

  it("lists metadata most recently updated first, with cursor pagination, titles and renames", async () => {
    const { key } = await newApiKey(await newUser());
    const a = await newConversation(key, "Alpha");
    const b = await newConversation(key);
    const c = await newConversation(key, "Gamma");
    await send(key, b, "Plan the Q3 newsletter for our 12,000 subscribers and draft three subject lines that mention the launch");
    const first = await json(await call("/v1/conversations?limit=2", { token: key }));
    expect(first.data.map((x: any) => x.id)).toEqual([b, c]);
    expect(first.data[0].title).toBe("Plan the Q3 newsletter for our 12,000 subscribers and draft…");
    expect(first.data[0]).not.toHaveProperty("messages");
    const second = await json(await call(`/v1/conversations?limit=2&cursor=${first.next_cursor}`, { token: key }));
    expect(second).toMatchObject({ data: [{ id: a, title: "Alpha" }], next_cursor: null });

    const renamed = await call(`/v1/conversations/${a}`, { method: "PATCH", token: key, json: { title: "Alpha launch" } });
    expect(await json(renamed)).toMatchObject({ id: a, title: "Alpha launch" });
    expect((await json(await call("/v1/conversations?limit=1", { token: key }))).data[0].id).toBe(a);

    expect((await call(`/v1/conversations/${c}`, { method: "DELETE", token: key })).status).toBe(204);
    await expectProblem(await call(`/v1/conversations/${c}`, { token: key }), 404, "not_found");
  });

  it("answers 404 for another user's conversation on every operation", async () => {
    const owner = await newApiKey(await newUser());
    const stranger = await newApiKey(await newUser());
    const id = await newConversation(owner.key, "Private");
    const attempts: [string, string, unknown?][] = [
      ["GET", `/v1/conversations/${id}`],
      ["GET", `/v1/conversations/${id}/messages`],
      ["GET", `/v1/conversations/${id}/stream`],
      ["POST", `/v1/conversations/${id}/messages`, { content: "hi" }],
      ["PATCH", `/v1/conversations/${id}`, { title: "mine" }],
      ["DELETE", `/v1/conversations/${id}`],
      ["POST", `/v1/conversations/${id}/explain-intent`, { content: "hi" }],
      ["POST", `/v1/conversations/${id}/explain-tools`, { content: "hi" }],
      ["POST", `/v1/conversations/${id}/validate-tool-call`, { name: "uuid_generate", arguments: {} }],
    ];
    for (const [method, path, body] of attempts) {
      await expectProblem(await call(path, { method, token: stranger.key, ...(body ? { json: body } : {}) }), 404, "not_found");
    }
    expect((await json(await call("/v1/conversations", { token: stranger.key }))).data).toEqual([]);
    expect((await call(`/v1/conversations/${id}`, { token: owner.key })).status).toBe(200);
  });

  it("streams new messages to every connected client", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await newConversation(key);
    const clients = [await call(`/v1/conversations/${id}/stream`, { token: key }), await call(`/v1/conversations/${id}/stream`, { token: key })];
    for (const client of clients) expect(client.headers.get("Content-Type")).toContain("text/event-stream");
    const collect = async (response: Response) => {
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      while (!/"role":"assistant"/.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
      await reader.cancel();
      return text;
    };
    const readers = clients.map(collect);
    await send(key, id, "math evaluate expression: 6 * 7");
    for (const text of await Promise.all(readers)) {
      const events = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
      expect(events[0]).toBe("ready");
      expect(events).toEqual(expect.arrayContaining(["status", "message", "tool_started"]));
      const roles = [...text.matchAll(/"role":"(\w+)"/g)].map((m) => m[1]);
      expect(roles).toEqual(["user", "tool", "assistant"]);
    }
  });
});

describe("debug endpoints", () => {
  it("generates a direct response without tools", async () => {
    const { key } = await newApiKey(await newUser());
    const response = await json(await call("/v1/chat/test", { token: key, json: { content: "math evaluate expression: 1 + 1" } }));
    expect(response).toMatchObject({ provider: "local", model: "local-tool-router" });
    expect(response.content).toContain("no language model"); // no tools were offered
  });

  it("validates a tool call without running it or spending the tool budget", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await newConversation(key);
    const path = `/v1/conversations/${id}/validate-tool-call`;
    expect(await json(await call(path, { token: key, json: { name: "math_evaluate", arguments: { expression: "1+1" } } }))).toEqual({
      valid: true,
      errors: [],
      tool: { name: "math_evaluate", connection_id: null },
    });
    const bad = await json(await call(path, { token: key, json: { name: "math_evaluate", arguments: { expression: 5 } } }));
    expect(bad).toMatchObject({ valid: false, errors: [expect.objectContaining({ field: "arguments.expression" })] });
    expect(await json(await call(path, { token: key, json: { name: "nope", arguments: {} } }))).toMatchObject({ valid: false, tool: null });
    const unconnected = await json(await call(path, { token: key, json: { name: "slack_send_message", arguments: { text: "hi" } } }));
    expect(unconnected).toMatchObject({ valid: false, errors: [expect.objectContaining({ message: expect.stringContaining("Connect Slack first") })] });
    expect((await json(await call("/v1/audit-logs", { token: key }))).data).toEqual([]);
  });

  it("explains intent classification and tool relevance", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await newConversation(key);
    const explain = (what: string, content: string) => call(`/v1/conversations/${id}/${what}`, { token: key, json: { content } }).then(json);
    expect(await explain("explain-intent", "math evaluate expression: 2*21")).toMatchObject({
      intent: "run_tool",
      provider: "local",
      candidate_tools: expect.arrayContaining(["math_evaluate"]),
    });
    expect((await explain("explain-intent", "Every Monday, send the weekly campaign report to Slack")).intent).toBe("build_workflow");
    expect((await explain("explain-intent", "Hello there!")).intent).toBe("greeting");
    expect((await explain("explain-intent", "Why did open rates drop?")).intent).toBe("question");
    const intent = await explain("explain-intent", "math evaluate expression: 2*21");
    expect(intent.confidence).toBeGreaterThan(0.5);
    expect(intent.reasoning).toContain("math_evaluate");

    const tools = await explain("explain-tools", "generate a uuid for the new lead");
    expect(tools.tools[0]).toMatchObject({ name: "uuid_generate", reason: expect.stringContaining("uuid") });
    expect(tools.tools[0].score).toBeGreaterThan(0);
    expect(tools.tools.map((t: any) => t.score)).toEqual([...tools.tools.map((t: any) => t.score)].sort((a: number, b: number) => b - a));
  });
});
