import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { modelRequests, newConversation, newScenario, openai, script } from "../conversations/helpers";
import { agentConversation, connectPricedModel, deployAgent, say, sendWithVars } from "./helpers";

/** gpt-4o-mini's built-in price, USD per million tokens. */
const MINI = { input: 0.15, output: 0.6 };
const costOf = (input: number, output: number, price = MINI) => (input * price.input + output * price.output) / 1_000_000;
const math = (id: string) => ({ id, name: "math_evaluate", args: { expression: "6*7" } });

describe("usage on chat turns (DESIGN §6.2 Ledger)", () => {
  it("puts what the provider reported on the answer, priced at the model's price, and lands each request in the ledger", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("usage-chat");
    await connectPricedModel(key, scenario);
    await script(scenario, [
      openai.toolCalls([math("call_1")], { prompt_tokens: 100, completion_tokens: 20 }),
      openai.text("It is 42.", { prompt_tokens: 150, completion_tokens: 30 }),
    ]);
    const conversation = await newConversation(key);
    const reply = await say(key, conversation, "What is 6*7?", "openai");
    expect(reply).toMatchObject({ status: "completed", content: "It is 42.", tokens_used: 300 });
    expect(reply.usage).toEqual({ input_tokens: 250, output_tokens: 50, cost_usd: expect.any(Number), model: "gpt-4o-mini" });
    expect(reply.usage.cost_usd).toBeCloseTo(costOf(250, 50), 12);

    // The stored message carries it too; the user's and the tool's messages have none.
    const messages = await json(await call(`/v1/conversations/${conversation}/messages`, { token: key }));
    expect(messages.map((m: any) => [m.role, m.usage === null])).toEqual([
      ["user", true],
      ["tool", true],
      ["assistant", false],
    ]);
    expect(messages.at(-1).usage).toEqual(reply.usage);

    const report = await json(await call("/v1/usage?group_by=conversation", { token: key }));
    expect(report.data).toEqual([{ key: String(conversation), input_tokens: 250, output_tokens: 50, cost_usd: reply.usage.cost_usd, model_calls: 2 }]);
  });

  it("max_tokens_per_turn stops a turn of tool rounds before the next model request, naming the budget", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("usage-turn");
    await connectPricedModel(key, scenario);
    const agentId = await deployAgent(key, { provider: "openai", budget: { max_tokens_per_turn: 200 } });
    await script(scenario, [
      openai.toolCalls([math("call_1")], { prompt_tokens: 100, completion_tokens: 20 }),
      openai.toolCalls([math("call_2")], { prompt_tokens: 100, completion_tokens: 20 }),
      openai.text("Never asked for.", { prompt_tokens: 1, completion_tokens: 1 }),
    ]);
    const conversation = await agentConversation(key, agentId);
    const reply = await say(key, conversation, "Work out 6*7, twice.");
    expect(reply.status).toBe("budget_exceeded");
    expect(reply.error_message).toBe("agent_config.budget.max_tokens_per_turn (200) reached: this turn used 240 tokens.");
    expect(reply.content).toBe("");
    // Both rounds' calls ran and are recorded; the third request was never made.
    expect(reply.tools_called.map((c: any) => [c.id, c.round, c.success])).toEqual([
      ["call_1", 1, true],
      ["call_2", 2, true],
    ]);
    expect(reply.usage).toMatchObject({ input_tokens: 200, output_tokens: 40, model: "gpt-4o-mini" });
    expect(await modelRequests(scenario)).toHaveLength(2);

    // The next turn starts afresh: a turn's budget is its own.
    const next = await say(key, conversation, "And now?");
    expect(next).toMatchObject({ status: "completed", content: "Never asked for." });
    // The ended turn is replayed like a failed one: its calls, no answer.
    const replayed = (await modelRequests(scenario))[2].body.messages;
    expect(replayed.filter((m: any) => m.role === "tool")).toHaveLength(2);
    expect(replayed.filter((m: any) => m.role === "assistant" && typeof m.content === "string" && m.content.length > 0)).toHaveLength(0);
  });

  it("max_usd_per_day counts the agent's turns of the day together", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("usage-day");
    await connectPricedModel(key, scenario);
    const agentId = await deployAgent(key, { provider: "openai", budget: { max_usd_per_day: 0.02 } });
    await script(scenario, [
      // $0.015 + $0.006 = $0.021: past the day's $0.02 once answered.
      openai.text("A long answer.", { prompt_tokens: 100_000, completion_tokens: 10_000 }),
      openai.text("Never asked for."),
    ]);
    const first = await say(key, await agentConversation(key, agentId), "Write a lot.");
    expect(first.status).toBe("completed");
    expect(first.usage.cost_usd).toBeCloseTo(0.021, 12);

    // Another conversation of the same agent: the day is the agent's, not the conversation's.
    const second = await say(key, await agentConversation(key, agentId), "More.");
    expect(second).toMatchObject({ status: "budget_exceeded", usage: null });
    expect(second.error_message).toBe("agent_config.budget.max_usd_per_day ($0.02) reached: this agent spent $0.021 today (UTC).");
    expect(await modelRequests(scenario)).toHaveLength(1);
  });
});

describe("the account's budget (PUT /v1/me/budget)", () => {
  it("max_usd_per_month stops every model request of the account once reached, until raised or cleared", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("usage-month");
    await connectPricedModel(key, scenario);
    expect(await json(await call("/v1/me/budget", { token: key }))).toEqual({ max_usd_per_month: null, max_tokens_per_day: null });
    const put = await call("/v1/me/budget", { token: key, method: "PUT", json: { max_usd_per_month: 0.01 } });
    expect(put.status).toBe(200);
    expect(await json(put)).toEqual({ max_usd_per_month: 0.01, max_tokens_per_day: null });

    await script(scenario, [openai.text("Costly.", { prompt_tokens: 100_000, completion_tokens: 10_000 }), openai.text("Again.")]);
    const conversation = await newConversation(key);
    expect((await say(key, conversation, "Go.", "openai")).status).toBe("completed");
    const refused = await say(key, conversation, "Go on.", "openai");
    expect(refused.status).toBe("budget_exceeded");
    expect(refused.error_message).toBe("The account's budget max_usd_per_month ($0.01) reached: the account spent $0.021 this month (UTC).");
    // A direct question is the account's too: refused before the provider, 409 budget_exceeded.
    const direct = await expectProblem(await call("/v1/chat/test", { token: key, json: { content: "Hi", provider: "openai" } }), 409, "budget_exceeded");
    expect(direct.detail).toContain("max_usd_per_month");
    expect(await modelRequests(scenario)).toHaveLength(1);

    // A field left out keeps its value; null clears it.
    expect(await json(await call("/v1/me/budget", { token: key, method: "PUT", json: { max_tokens_per_day: 1_000_000 } }))).toEqual({
      max_usd_per_month: 0.01,
      max_tokens_per_day: 1_000_000,
    });
    await call("/v1/me/budget", { token: key, method: "PUT", json: { max_usd_per_month: null } });
    expect((await say(key, conversation, "Once more.", "openai")).status).toBe("completed");
  });

  it("max_tokens_per_day counts the day's tokens; bad budgets are refused with the field named", async () => {
    const { key } = await newApiKey(await newUser());
    const bad = await expectProblem(await call("/v1/me/budget", { token: key, method: "PUT", json: { max_usd_per_month: -1 } }), 422, "validation_failed");
    expect(bad.errors?.map((e: any) => e.field)).toEqual(["max_usd_per_month"]);
    await expectProblem(await call("/v1/me/budget", { token: key, method: "PUT", json: { max_tokens_per_day: 1.5 } }), 422, "validation_failed");
    await expectProblem(await call("/v1/me/budget", { token: key, method: "PUT", json: { per_week: 3 } }), 422, "validation_failed");
    const reader = (await newApiKey(await newUser(), { scopes: ["data:read"] })).key;
    await expectProblem(await call("/v1/me/budget", { token: reader, method: "PUT", json: {} }), 403, "insufficient_scope");

    const scenario = newScenario("usage-tokens");
    await connectPricedModel(key, scenario);
    await call("/v1/me/budget", { token: key, method: "PUT", json: { max_tokens_per_day: 100 } });
    await script(scenario, [openai.text("Done.", { prompt_tokens: 90, completion_tokens: 20 })]);
    const answer = await json(await call("/v1/chat/test", { token: key, json: { content: "Hi", provider: "openai" } }));
    expect(answer).toMatchObject({ content: "Done.", tokens_used: 110 });
    const refused = await expectProblem(await call("/v1/chat/test", { token: key, json: { content: "Hi", provider: "openai" } }), 409, "budget_exceeded");
    expect(refused.detail).toBe("The account's budget max_tokens_per_day (100) reached: the account used 110 tokens today (UTC).");
  });
});

describe("prices", () => {
  it("MODEL_PRICES overrides the built-in price of a model, and prices one the hub does not know", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("usage-prices");
    await connectPricedModel(key, scenario, "house-model-7b");
    await script(scenario, [
      openai.text("One.", { prompt_tokens: 1000, completion_tokens: 500 }),
      openai.text("Two.", { prompt_tokens: 1000, completion_tokens: 500 }),
    ]);
    const ask = (vars: Record<string, string>) => sendWithVars(vars, key, "/v1/chat/test", { content: "Hi", provider: "openai" });
    // Unknown and unpriced: its tokens count, at no cost.
    expect((await ask({})).status).toBe(200);
    const prices = JSON.stringify({ "house-model-7b": { input_per_mtok: 2, output_per_mtok: 8 } });
    expect((await ask({ MODEL_PRICES: prices })).status).toBe(200);
    const report = await json(await call("/v1/usage?group_by=model", { token: key }));
    expect(report.data).toEqual([{ key: "house-model-7b", input_tokens: 2000, output_tokens: 1000, cost_usd: expect.any(Number), model_calls: 2 }]);
    expect(report.data[0].cost_usd).toBeCloseTo((1000 * 2 + 500 * 8) / 1_000_000, 12);
  });
});

describe("agent_config.budget", () => {
  it("is checked when an agent is deployed or changed: known budgets of positive amounts only, each named", async () => {
    const { key } = await newApiKey(await newUser());
    const agentId = await deployAgent(key, { budget: { max_tokens_per_turn: 2000, max_usd_per_day: 1.5 } });
    const patch = (budget: unknown) => call(`/v1/agents/${agentId}`, { token: key, method: "PATCH", json: { agent_config: { budget } } });
    for (const [budget, field] of [
      [{ max_usd_per_day: -1 }, "agent_config.budget.max_usd_per_day"],
      [{ max_tokens_per_turn: 10.5 }, "agent_config.budget.max_tokens_per_turn"],
      [{ max_dollars: 3 }, "agent_config.budget.max_dollars"],
    ] as const) {
      const refused = await expectProblem(await patch(budget), 422, "validation_failed");
      expect(refused.errors?.map((e: any) => e.field)).toEqual([field]);
    }
    expect((await json(await call(`/v1/agents/${agentId}`, { token: key }))).agent_config).toEqual({
      budget: { max_tokens_per_turn: 2000, max_usd_per_day: 1.5 },
    });
  });
});
