import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { FAKE, anthropic, connectMcp, modelRequests, newConversation, newScenario, openai, script } from "./helpers";

describe("the orchestrator with an OpenAI-compatible provider", () => {
  it("runs the model's tool calls (a real MCP tool and a built-in), stores every message in order, and sums tokens", async () => {
    const { key } = await newApiKey(await newUser());
    const mcpId = await connectMcp(key);
    const scenario = newScenario("oai");
    await call("/v1/connections", {
      token: key,
      json: { platform: "openai", name: "My key", config: { api_key: "sk-test-0123456789abcdef", base_url: `${FAKE()}/s/${scenario}`, model: "fake-gpt" } },
    });
    await script(scenario, [
      openai.toolCalls([
        { id: "call_echo", name: `mcp_${mcpId}_echo`, args: { message: "launch day" } },
        { id: "call_math", name: "math_evaluate", args: { expression: "1200 * 0.15" } },
      ]),
      openai.text("Echoed **launch day**; 15% of 1200 is 180."),
    ]);
    const conversation = await newConversation(key);

    const response = await call(`/v1/conversations/${conversation}/messages`, {
      token: key,
      json: { content: "Echo launch day and work out 15% of 1200", provider: "openai" },
    });
    expect(response.status).toBe(201);
    const reply = await json(response);
    expect(reply).toMatchObject({
      role: "assistant",
      content: "Echoed **launch day**; 15% of 1200 is 180.",
      status: "completed",
      provider: "openai",
      model: "fake-gpt",
      tokens_used: 120 + 180,
      error_message: null,
    });
    expect(reply.tools_called.map((t: any) => [t.id, t.name, t.success, t.round])).toEqual([
      ["call_echo", `mcp_${mcpId}_echo`, true, 1],
      ["call_math", "math_evaluate", true, 1],
    ]);

    const messages = await json(await call(`/v1/conversations/${conversation}/messages`, { token: key }));
    expect(messages.map((m: any) => [m.role, m.tool_call_id])).toEqual([
      ["user", null],
      ["tool", "call_echo"],
      ["tool", "call_math"],
      ["assistant", null],
    ]);
    expect(messages[1].content).toContain("launch day");
    expect(messages[2].content).toContain("180");
    expect(messages.map((m: any) => m.id)).toEqual([...messages.map((m: any) => m.id)].sort((a: number, b: number) => a - b));

    // The model saw the tools, then the results under the ids it chose.
    const [first, second] = await modelRequests(scenario);
    expect(first.method).toBe("POST");
    expect(first.path).toBe("/chat/completions");
    expect(first.headers.authorization).toBe("Bearer sk-test-0123456789abcdef");
    expect(first.body.model).toBe("fake-gpt");
    const offered = first.body.tools.map((t: any) => t.function.name);
    // A catalog of more than 20 tools: at most 16 definitions, search_tools among them; a tool that
    // was not offered (math_evaluate) still runs when the model calls it.
    expect(offered).toEqual(expect.arrayContaining([`mcp_${mcpId}_echo`, "search_tools"]));
    expect(offered.length).toBeLessThanOrEqual(16);
    const results = second.body.messages.filter((m: any) => m.role === "tool");
    expect(results.map((m: any) => m.tool_call_id)).toEqual(["call_echo", "call_math"]);

    // The conversation got a title from its first message, and counts its messages.
    const meta = await json(await call(`/v1/conversations/${conversation}`, { token: key }));
    expect(meta).toMatchObject({ title: "Echo launch day and work out 15% of 1200", message_count: 4, state: "idle", status: "idle" });
    expect(meta.messages).toHaveLength(4);
  });

  it("keeps the user's message and answers with an error message when the provider fails", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("oaifail");
    await call("/v1/connections", {
      token: key,
      json: { platform: "openai", name: "k", config: { api_key: "sk-test-failing-000000", base_url: `${FAKE()}/s/${scenario}` } },
    });
    await script(scenario, [
      { status: 500, body: { error: { message: "upstream exploded", type: "server_error" } } },
      { status: 500, body: { error: { message: "upstream exploded", type: "server_error" } } },
    ]);
    const conversation = await newConversation(key, "Failing");
    const reply = await json(await call(`/v1/conversations/${conversation}/messages`, { token: key, json: { content: "hello", provider: "openai" } }));
    expect(reply).toMatchObject({ role: "assistant", status: "error", error_message: expect.stringContaining("openai provider failed"), provider: "openai" });
    const messages = await json(await call(`/v1/conversations/${conversation}/messages`, { token: key }));
    expect(messages.map((m: any) => [m.role, m.status])).toEqual([
      ["user", "received"],
      ["assistant", "error"],
    ]);
  });
});

describe("the orchestrator with the Anthropic wire format", () => {
  it("runs tool_use blocks and returns tool_result blocks under the same ids", async () => {
    const { key } = await newApiKey(await newUser());
    const mcpId = await connectMcp(key);
    const scenario = newScenario("ant");
    await call("/v1/connections", {
      token: key,
      json: { platform: "anthropic", name: "Claude", config: { api_key: "sk-ant-test-0123456789", base_url: `${FAKE()}/s/${scenario}`, model: "fake-claude" } },
    });
    await script(scenario, [
      anthropic.toolUse([
        { id: "toolu_sum", name: `mcp_${mcpId}_get-sum`, input: { a: 40, b: 2 } },
        { id: "toolu_uuid", name: "uuid_generate", input: {} },
      ]),
      anthropic.text("The sum is 42 and I made a UUID."),
    ]);
    const conversation = await newConversation(key);
    const reply = await json(
      await call(`/v1/conversations/${conversation}/messages`, {
        token: key,
        json: { content: "get the sum of 40 and 2, and make a uuid", provider: "anthropic" },
      }),
    );
    expect(reply).toMatchObject({ status: "completed", content: "The sum is 42 and I made a UUID.", provider: "anthropic", tokens_used: 105 + 145 });
    expect(reply.tools_called.map((t: any) => t.id)).toEqual(["toolu_sum", "toolu_uuid"]);

    const messages = await json(await call(`/v1/conversations/${conversation}/messages`, { token: key }));
    expect(messages.map((m: any) => [m.role, m.tool_call_id])).toEqual([
      ["user", null],
      ["tool", "toolu_sum"],
      ["tool", "toolu_uuid"],
      ["assistant", null],
    ]);
    expect(messages[1].content).toContain("42");

    const [first, second] = await modelRequests(scenario);
    expect(first.path).toBe("/messages");
    expect(first.headers["x-api-key"]).toBe("sk-ant-test-0123456789");
    expect(first.headers["anthropic-version"]).toBeTruthy();
    expect(first.body.tools.map((t: any) => t.name)).toEqual(expect.arrayContaining([`mcp_${mcpId}_get-sum`, "uuid_generate"]));
    const toolResults = second.body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((p: any) => p.type === "tool_result");
    expect(toolResults.map((p: any) => p.tool_use_id)).toEqual(["toolu_sum", "toolu_uuid"]);
  });
});

describe("providers", () => {
  it("refuses an unknown or unconfigured provider with a 422 naming the configured ones, storing nothing", async () => {
    const { key } = await newApiKey(await newUser());
    const conversation = await newConversation(key);
    const unknown = await expectProblem(
      await call(`/v1/conversations/${conversation}/messages`, { token: key, json: { content: "hi", provider: "skynet" } }),
      422,
      "validation_failed",
    );
    expect(unknown.detail).toContain("configured providers: local");
    await expectProblem(
      await call(`/v1/conversations/${conversation}/messages`, { token: key, json: { content: "hi", provider: "anthropic" } }),
      422,
      "validation_failed",
    );
    expect(await json(await call(`/v1/conversations/${conversation}/messages`, { token: key }))).toEqual([]);
  });

  it("lists providers with the user's own key configured and the default", async () => {
    const { key } = await newApiKey(await newUser());
    const before = await json(await call("/v1/chat/providers", { token: key }));
    expect(before.default).toBe("local");
    expect(before.providers.find((p: any) => p.id === "openai")).toMatchObject({ configured: false });
    await call("/v1/connections", { token: key, json: { platform: "openai", name: "k", config: { api_key: "sk-test-list-0000000", model: "gpt-test" } } });
    await call("/v1/me", { method: "PATCH", token: key, json: { default_provider: "openai" } });
    const after = await json(await call("/v1/chat/providers", { token: key }));
    expect(after.default).toBe("openai");
    expect(after.providers.find((p: any) => p.id === "openai")).toMatchObject({ configured: true, source: "connection", models: ["gpt-test"] });
  });
});
