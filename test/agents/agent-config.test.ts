import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { FAKE, modelRequests, newScenario, openai, script } from "../conversations/helpers";
import { newWorkflow } from "../helpers/runs";

/** The agent's settings these tests give: its own instructions, model and one tool. */
const agentConfig = { instructions: "You are the lead desk. Answer in one line.", provider: "openai", model: "fake-gpt-mini", tools: ["uuid_generate"] };

async function connectModel(key: string, scenario: string) {
  const response = await call("/v1/connections", {
    token: key,
    json: { platform: "openai", name: "m", config: { api_key: "sk-test-agentcfg-0000", base_url: `${FAKE()}/s/${scenario}`, model: "fake-gpt" } },
  });
  expect(response.status).toBe(201);
}

describe("agent_config.tools", () => {
  it("refuses a tool name the catalog does not know when deploying, and keeps the known ones", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "id", type: "tool", tool: "uuid_generate", arguments: {} }] });
    const refused = await expectProblem(
      await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: { tools: ["uuid_generate", "uuid_genrate"] } } }),
      422,
      "validation_failed",
    );
    expect(refused.errors).toEqual([expect.objectContaining({ field: "agent_config.tools.1", message: expect.stringContaining("uuid_genrate") })]);
    // Nothing was deployed.
    expect(await json(await call("/v1/agents", { token: key }))).toEqual([]);

    const deployed = await call("/v1/agents/deploy", {
      token: key,
      json: { workflow_id: workflow.id, agent_config: { tools: ["uuid_generate", "math_evaluate"] } },
    });
    expect(deployed.status).toBe(201);
    expect((await json(deployed)).agent_config).toEqual({ tools: ["uuid_generate", "math_evaluate"] });
  });

  it("is checked the same way when the agent's config changes, and only its owner may change it", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [{ id: "id", type: "tool", tool: "uuid_generate", arguments: {} }] });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: { tools: ["uuid_generate"] } } }));
    const url = `/v1/agents/${agent.agent_id}`;
    const bad = await expectProblem(
      await call(url, { token: key, method: "PATCH", json: { agent_config: { tools: ["math_evaluate", "nope"] } } }),
      422,
      "validation_failed",
    );
    expect(bad.errors?.map((e: any) => e.field)).toEqual(["agent_config.tools.1"]);
    expect((await json(await call(url, { token: key }))).agent_config).toEqual({ tools: ["uuid_generate"] });

    const changed = await call(url, { token: key, method: "PATCH", json: { agent_config: { instructions: "Be brief.", tools: ["math_evaluate"] } } });
    expect(changed.status).toBe(200);
    expect((await json(changed)).agent_config).toEqual({ instructions: "Be brief.", tools: ["math_evaluate"] });
    // No agent_config: nothing changes.
    expect((await json(await call(url, { token: key, method: "PATCH", json: {} }))).agent_config).toEqual({
      instructions: "Be brief.",
      tools: ["math_evaluate"],
    });
    const stranger = (await newApiKey(await newUser())).key;
    await expectProblem(await call(url, { token: stranger, method: "PATCH", json: { agent_config: {} } }), 404, "not_found");
  });
});

describe("a chat agent's conversation", () => {
  it("belongs to the agent, and its turns use the agent's instructions, model and tools: another tool is neither offered nor run", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("agent-chat");
    await connectModel(key, scenario);
    const response = await call("/v1/workflows/chat-agent", {
      token: key,
      json: { description: "Generate a uuid for the lead.", name: "Lead desk", agent_config: agentConfig },
    });
    expect(response.status).toBe(201);
    const created = await json(response);
    expect(created.agent).toMatchObject({ workflow_id: created.workflow.id, agent_config: { description: "Generate a uuid for the lead.", ...agentConfig } });
    expect(created.conversation).toMatchObject({ id: created.conversation_id, agent_id: created.agent.agent_id });
    const conversationUrl = `/v1/conversations/${created.conversation_id}`;
    expect(await json(await call(conversationUrl, { token: key }))).toMatchObject({ agent_id: created.agent.agent_id, title: "Chat with Lead desk" });

    // The model asks for a tool the agent may not use and one it may; then it answers.
    await script(scenario, [
      openai.toolCalls([
        { id: "call_math", name: "math_evaluate", args: { expression: "2 + 2" } },
        { id: "call_id", name: "uuid_generate", args: {} },
      ]),
      openai.text("Lead id made."),
    ]);
    const reply = await json(await call(`${conversationUrl}/messages`, { token: key, json: { content: "Make an id for the new lead and add 2 + 2" } }));
    expect(reply).toMatchObject({ status: "completed", content: "Lead id made.", provider: "openai", model: "fake-gpt-mini" });
    expect(reply.tools_called.map((t: any) => [t.name, t.success])).toEqual([
      ["math_evaluate", false],
      ["uuid_generate", true],
    ]);
    expect(reply.tools_called[0].error_message).toContain("not one this agent may use");

    const [first, second] = await modelRequests(scenario);
    expect(first.body.model).toBe("fake-gpt-mini");
    expect(first.body.tools.map((t: any) => t.function.name)).toEqual(["uuid_generate"]);
    expect(first.body.messages[0].role).toBe("system");
    expect(first.body.messages[0].content).toMatch(/Agent Automation Hub assistant[\s\S]*\n\nYou are the lead desk\. Answer in one line\.$/);
    // The refusal reaches the model as the tool's result, so it can say so.
    const results = second.body.messages.filter((m: any) => m.role === "tool");
    expect(results.find((m: any) => m.tool_call_id === "call_math").content).toMatch(/^Error: The tool "math_evaluate" is not one this agent may use/);
    expect(results.find((m: any) => m.tool_call_id === "call_id").content).toContain("uuid");

    // Checking a call says the same.
    const check = await json(
      await call(`${conversationUrl}/validate-tool-call`, { token: key, json: { name: "math_evaluate", arguments: { expression: "1" } } }),
    );
    expect(check).toMatchObject({ valid: false, errors: [{ field: "name", message: expect.stringContaining("not one this agent may use") }] });
  });

  it("a chat agent with an unknown tool in agent_config makes nothing", async () => {
    const { key } = await newApiKey(await newUser());
    await expectProblem(
      await call("/v1/workflows/chat-agent", { token: key, json: { description: "Generate a uuid.", agent_config: { tools: ["no_such_tool"] } } }),
      422,
      "validation_failed",
    );
    expect(await json(await call("/v1/workflows", { token: key }))).toMatchObject({ data: [] });
    expect(await json(await call("/v1/conversations", { token: key }))).toMatchObject({ data: [] });
  });

  it("a conversation may be opened with one of your agents, never another user's", async () => {
    const owner = (await newApiKey(await newUser())).key;
    const other = (await newApiKey(await newUser())).key;
    const workflow = await newWorkflow(owner, { steps: [{ id: "id", type: "tool", tool: "uuid_generate", arguments: {} }] });
    const agent = await json(await call("/v1/agents/deploy", { token: owner, json: { workflow_id: workflow.id } }));
    const mine = await json(await call("/v1/conversations", { token: owner, json: { agent_id: agent.agent_id } }));
    expect(mine.conversation.agent_id).toBe(agent.agent_id);
    await expectProblem(await call("/v1/conversations", { token: other, json: { agent_id: agent.agent_id } }), 404, "not_found");
    // A plain conversation has no agent.
    expect((await json(await call("/v1/conversations", { token: owner, json: {} }))).conversation.agent_id).toBeNull();
    // Deleting the agent keeps the conversation, which then answers as a plain one.
    expect((await call(`/v1/agents/${agent.agent_id}`, { token: owner, method: "DELETE" })).status).toBe(204);
    expect((await json(await call(`/v1/conversations/${mine.id}`, { token: owner }))).agent_id).toBeNull();
  });
});
