import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { ledgerRow } from "./helpers";

const DAY = 86_400_000;
const today = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()));
const daysAgo = (n: number, hour = 12) => new Date(today.getTime() - n * DAY + hour * 3_600_000);
const dayKey = (n: number) => daysAgo(n).toISOString().slice(0, 10);

/** A user with four requests over two days, two models, an agent, a conversation and a workflow. */
async function userWithLedger() {
  const user = await newUser();
  const { key } = await newApiKey(user);
  const rows = [
    { at: daysAgo(3), model: "gpt-4o", agentId: "agent-a", workflowId: 7, executionId: "exe_1", input: 1000, output: 200, nanoUsd: 4_500_000 },
    { at: daysAgo(3, 13), model: "gpt-4o-mini", conversationId: 11, input: 333, output: 111, nanoUsd: 116_550 },
    { at: daysAgo(1), model: "gpt-4o", agentId: "agent-a", conversationId: 11, input: 10, output: 1, nanoUsd: 35_000 },
    { at: daysAgo(1, 2), model: "claude-3-5-haiku-20241022", input: 7, output: 3, nanoUsd: 17_600 },
  ];
  for (const row of rows) await ledgerRow({ userId: user.id, ...row });
  return { key, user };
}

const totals = { input_tokens: 1350, output_tokens: 315, cost_usd: 4_669_150 / 1e9, model_calls: 4 };

describe("GET /v1/usage (DESIGN §6.2 Ledger)", () => {
  it("sums the ledger per day, model, agent, conversation and workflow, with exact totals", async () => {
    const { key } = await userWithLedger();
    const report = async (query: string) => json(await call(`/v1/usage?${query}`, { token: key }));

    const byDay = await report("group_by=day");
    expect(byDay.group_by).toBe("day");
    expect(byDay.data).toEqual([
      { key: dayKey(3), input_tokens: 1333, output_tokens: 311, cost_usd: 4_616_550 / 1e9, model_calls: 2 },
      { key: dayKey(1), input_tokens: 17, output_tokens: 4, cost_usd: 52_600 / 1e9, model_calls: 2 },
    ]);
    expect(byDay.totals).toEqual(totals);
    // Without group_by, days.
    expect((await report("")).data).toEqual(byDay.data);

    const byModel = await report("group_by=model");
    expect(byModel.data.map((row: any) => [row.key, row.model_calls, row.input_tokens])).toEqual([
      ["gpt-4o", 2, 1010],
      ["gpt-4o-mini", 1, 333],
      ["claude-3-5-haiku-20241022", 1, 7],
    ]);
    expect(byModel.totals).toEqual(totals);

    const byAgent = await report("group_by=agent");
    expect(byAgent.data).toEqual([
      { key: "agent-a", input_tokens: 1010, output_tokens: 201, cost_usd: 4_535_000 / 1e9, model_calls: 2 },
      { key: null, input_tokens: 340, output_tokens: 114, cost_usd: 134_150 / 1e9, model_calls: 2 },
    ]);
    const byConversation = await report("group_by=conversation");
    expect(byConversation.data.map((row: any) => [row.key, row.model_calls])).toEqual([
      [null, 2],
      ["11", 2],
    ]);
    const byWorkflow = await report("group_by=workflow");
    expect(byWorkflow.data.map((row: any) => [row.key, row.model_calls])).toEqual([
      ["7", 1],
      [null, 3],
    ]);
    expect(byWorkflow.totals).toEqual(totals);
  });

  it("reads the range asked for: dates include their whole day, date-times are exact, the default is the last 30 days", async () => {
    const { key } = await userWithLedger();
    await ledgerRow({ userId: (await json(await call("/v1/me", { token: key }))).id, at: daysAgo(40), input: 5, output: 5, nanoUsd: 1 });
    const report = async (query: string) => json(await call(`/v1/usage?${query}`, { token: key }));
    expect((await report("")).totals.model_calls).toBe(4);
    expect((await report(`from=${dayKey(45)}`)).totals.model_calls).toBe(5);
    // `to` as a date includes that day; as a date-time it ends there.
    const upToThree = await report(`from=${dayKey(10)}&to=${dayKey(3)}`);
    expect(upToThree.totals.model_calls).toBe(2);
    expect(upToThree.to).toBe(new Date(daysAgo(2, 0)).toISOString());
    expect((await report(`from=${dayKey(10)}&to=${daysAgo(3, 12).toISOString()}`)).totals.model_calls).toBe(0);
    expect((await report(`from=${daysAgo(3, 12).toISOString()}&to=${daysAgo(3, 13).toISOString()}`)).totals).toMatchObject({
      model_calls: 1,
      input_tokens: 1000,
    });
    // An empty range is all zeros.
    expect((await report(`from=${dayKey(20)}&to=${dayKey(15)}`)).totals).toEqual({ input_tokens: 0, output_tokens: 0, cost_usd: 0, model_calls: 0 });
  });

  it("refuses a bad group_by, a malformed bound, a reversed range and one over 366 days, in the error shape", async () => {
    const { key } = await newApiKey(await newUser());
    const field = async (query: string) =>
      (await expectProblem(await call(`/v1/usage?${query}`, { token: key }), 422, "validation_failed")).errors?.map((e: any) => [e.location, e.field]);
    expect(await field("group_by=week")).toEqual([["query", "group_by"]]);
    expect(await field("from=yesterday")).toEqual([["query", "from"]]);
    expect(await field("from=2026-11-01T09:00:00")).toEqual([["query", "from"]]);
    expect(await field("from=2026-11-10&to=2026-11-01")).toEqual([["query", "from"]]);
    expect(await field("from=2025-01-01&to=2026-06-01")).toEqual([["query", "to"]]);
    expect((await call("/v1/usage?from=2025-01-01&to=2026-01-01", { token: key })).status).toBe(200);
  });

  it("shows only the caller's own usage, and needs data:read", async () => {
    await userWithLedger();
    const { key } = await newApiKey(await newUser());
    const report = await json(await call("/v1/usage?group_by=model", { token: key }));
    expect(report.data).toEqual([]);
    expect(report.totals.model_calls).toBe(0);
    const writer = (await newApiKey(await newUser(), { scopes: ["data:write"] })).key;
    await expectProblem(await call("/v1/usage", { token: writer }), 403, "insufficient_scope");
    await expectProblem(await call("/v1/usage"), 401, "unauthorized");
  });
});
