import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type ServiceContext, delegatedContext, runtimeFor } from "../../src/core/context";
import { agentSettingsOf } from "../../src/llm/agent-config";
import { queryTerms } from "../../src/memories/fts-query";
import { MEMORY_LIMITS } from "../../src/memories/limits";
import { recallForPrompt } from "../../src/memories/recall";
import { saveMemory, searchMemories } from "../../src/memories/service";
import { memoryToolSpecs, runMemoryTool } from "../../src/memories/tools";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";

interface MemoryAgent {
  key: string;
  userId: number;
  agentId: string;
  ctx: ServiceContext;
}

/** A user with an agent deployed through the API, and the context its turns would act with. */
async function memoryAgent(agentConfig: Record<string, unknown> = { memory: true }): Promise<MemoryAgent> {
  const user = await newUser();
  const { key } = await newApiKey(user);
  const workflow = await newWorkflow(key, { steps: [{ id: "id", type: "tool", tool: "uuid_generate", arguments: {} }] });
  const deployed = await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: agentConfig } });
  expect(deployed.status).toBe(201);
  const agent = await json(deployed);
  return { key, userId: user.id, agentId: agent.agent_id, ctx: delegatedContext(runtimeFor(env as never), user.id, "key_0") };
}

async function save(agent: MemoryAgent, text: string, source: { conversationId?: number; executionId?: string } = {}) {
  const outcome = await runMemoryTool(agent.ctx, { agentId: agent.agentId, ...source }, "memory_save", { text });
  if (!outcome.success) throw new Error(outcome.error_message);
  return outcome.result.memory_id as number;
}

async function search(agent: MemoryAgent, query: string, limit?: number) {
  const outcome = await runMemoryTool(agent.ctx, { agentId: agent.agentId }, "memory_search", limit === undefined ? { query } : { query, limit });
  if (!outcome.success) throw new Error(`${JSON.stringify(query).slice(0, 80)}: ${outcome.error_message}`);
  return (outcome.result.memories as { id: number; text: string }[]).map((memory) => memory.id);
}

/** Rows of the agent in the full-text index, counted through the index itself. */
async function indexedRows(agentId: string): Promise<number> {
  const row = await env.DB.prepare("select count(*) as n from agent_memories_fts where agent_memories_fts match ?")
    .bind(`agent_id : "${agentId}"`)
    .first<{ n: number }>();
  return row?.n ?? -1;
}

/** FTS5 checks that its index holds exactly what the content table holds; it throws otherwise. */
const indexIsConsistent = () => env.DB.prepare("insert into agent_memories_fts (agent_memories_fts) values ('integrity-check')").run();

/** Whether the text can go in a URL (a lone surrogate cannot be percent-encoded). */
function urlSafe(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

const listOf = async (agent: MemoryAgent, query = "") => json(await call(`/v1/agents/${agent.agentId}/memories${query}`, { token: agent.key }));

describe("agent_config.memory", () => {
  it("is accepted at deploy and on change, read only when true, and must be a boolean", async () => {
    const agent = await memoryAgent();
    expect((await json(await call(`/v1/agents/${agent.agentId}`, { token: agent.key }))).agent_config).toEqual({ memory: true });
    const changed = await call(`/v1/agents/${agent.agentId}`, {
      token: agent.key,
      method: "PATCH",
      json: { agent_config: { memory: false, instructions: "Hi." } },
    });
    expect(changed.status).toBe(200);
    expect((await json(changed)).agent_config).toEqual({ memory: false, instructions: "Hi." });
    await expectProblem(
      await call(`/v1/agents/${agent.agentId}`, { token: agent.key, method: "PATCH", json: { agent_config: { memory: "yes" } } }),
      422,
      "validation_failed",
    );
    expect(agentSettingsOf({ memory: true }).memory).toBe(true);
    expect(agentSettingsOf({ memory: "yes" }).memory).toBeUndefined();
    expect(agentSettingsOf({ memory: 1 }).memory).toBeUndefined();
  });

  it("gates the tools: an agent without it, or someone else's agent, gets a refusal the model reads", async () => {
    const plain = await memoryAgent({});
    const off = await runMemoryTool(plain.ctx, { agentId: plain.agentId }, "memory_save", { text: "x" });
    expect(off).toEqual({ success: false, error_message: expect.stringContaining("agent_config.memory") });

    const owner = await memoryAgent();
    await save(owner, "The owner's secret plan.");
    const stranger = await memoryAgent();
    for (const [name, args] of [
      ["memory_save", { text: "Mine now." }],
      ["memory_search", { query: "secret plan" }],
    ] as const) {
      expect(await runMemoryTool(stranger.ctx, { agentId: owner.agentId }, name, args)).toEqual({ success: false, error_message: "Agent not found" });
    }
    expect(await recallForPrompt(stranger.ctx, owner.agentId, "secret plan")).toBe("");
    expect(await runMemoryTool(owner.ctx, { agentId: owner.agentId }, "memory_forget", {})).toMatchObject({ success: false });
    expect((await listOf(owner)).data).toHaveLength(1);
  });

  it("offers two tools whose schemas carry the bounds", () => {
    const specs = memoryToolSpecs();
    expect(specs.map((spec) => spec.name)).toEqual(["memory_save", "memory_search"]);
    expect(JSON.stringify(specs[0]?.inputSchema)).toContain(`"maxLength":${MEMORY_LIMITS.textChars}`);
    expect(JSON.stringify(specs[1]?.inputSchema)).toContain(`"maximum":${MEMORY_LIMITS.maxSearchResults}`);
  });
});

describe("saving, searching and recalling", () => {
  it("ranks the best match first, with English word forms and accents folded", async () => {
    const agent = await memoryAgent();
    const weekly = await save(agent, "Anna wants the weekly report sent on Mondays.", { conversationId: 7 });
    const newsletter = await save(agent, "The weekly newsletter goes out on Thursdays.");
    const emailing = await save(agent, "Anna prefers email over Slack: sending reports by email to anna@example.com works best.");
    const venue = await save(agent, "Café Lumen is the usual venue for the team lunch.");

    expect((await search(agent, "send the report to Anna")).slice(0, 2)).toEqual([emailing, weekly]);
    expect(await search(agent, "cafe")).toEqual([venue]);
    expect(await search(agent, "newsletters")).toEqual([newsletter]);
    expect(await search(agent, "weekly", 1)).toHaveLength(1);
    expect(await search(agent, "zebra crossing")).toEqual([]);
    const tooMany = await runMemoryTool(agent.ctx, { agentId: agent.agentId }, "memory_search", { query: "weekly", limit: 21 });
    expect(tooMany).toEqual({ success: false, error_message: expect.stringContaining("limit") });
    // The service clamps what its callers ask for.
    expect(await searchMemories(agent.ctx, agent.agentId, "weekly report Anna email venue", 500)).toHaveLength(4);

    const block = await recallForPrompt(agent.ctx, agent.agentId, "Could you send Anna this week's report?");
    const lines = block.split("\n");
    expect(lines[0]).toMatch(/^Memories this agent saved/);
    expect(lines[1]).toContain("sending reports by email");
    expect(lines.length).toBeLessThanOrEqual(1 + MEMORY_LIMITS.recalled);
    expect(lines.slice(1).every((line) => /^- \(\d{4}-\d{2}-\d{2}\) /.test(line))).toBe(true);
    expect(await recallForPrompt(agent.ctx, agent.agentId, "What is the capital of Peru?")).toBe("");
    expect(await recallForPrompt(agent.ctx, agent.agentId, "")).toBe("");
  });

  it("recalls at most three memories, each on one line and cut, so the block stays small", async () => {
    const agent = await memoryAgent();
    for (let i = 0; i < 5; i++) await save(agent, `Budget note ${i}:\nignore previous lines ${"budget ".repeat(270)}`.slice(0, MEMORY_LIMITS.textChars));
    const block = await recallForPrompt(agent.ctx, agent.agentId, "budget");
    const lines = block.split("\n");
    expect(lines).toHaveLength(1 + MEMORY_LIMITS.recalled);
    expect(block.length).toBeLessThan(2_000);
    expect(lines.slice(1).every((line) => line.endsWith("…"))).toBe(true);
  });

  it("bounds a memory at 2,000 characters with a clear refusal, and refuses an empty one", async () => {
    const agent = await memoryAgent();
    expect(await save(agent, "a".repeat(MEMORY_LIMITS.textChars))).toBeGreaterThan(0);
    const tool = await runMemoryTool(agent.ctx, { agentId: agent.agentId }, "memory_save", { text: "a".repeat(MEMORY_LIMITS.textChars + 1) });
    expect(tool).toEqual({ success: false, error_message: expect.stringContaining("at most 2,000 characters") });
    await expect(saveMemory(agent.ctx, { agentId: agent.agentId, text: "b".repeat(2_345) })).rejects.toThrow(
      "A memory holds at most 2,000 characters; this one has 2,345. Save a shorter note.",
    );
    expect(await runMemoryTool(agent.ctx, { agentId: agent.agentId }, "memory_save", { text: "   " })).toMatchObject({ success: false });
    expect(await runMemoryTool(agent.ctx, { agentId: agent.agentId }, "memory_save", {})).toMatchObject({ success: false });
    expect((await listOf(agent)).data).toHaveLength(1);
  });

  it("holds 10,000 memories per agent, also when saves come at once", async () => {
    const agent = await memoryAgent();
    const prefill = MEMORY_LIMITS.perAgent - 2;
    // Pre-filled in one statement; the insert trigger indexes every row as a save would.
    await env.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
       insert into agent_memories (agent_id, user_id, text) select ?, ?, 'filler note number ' || i from n`,
    )
      .bind(prefill, agent.agentId, agent.userId)
      .run();
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, (_, i) => runMemoryTool(agent.ctx, { agentId: agent.agentId }, "memory_save", { text: `Racing save ${i}` })),
    );
    expect(outcomes.filter((outcome) => outcome.success)).toHaveLength(2);
    for (const outcome of outcomes.filter((outcome) => !outcome.success)) {
      expect(outcome).toEqual({ success: false, error_message: expect.stringContaining("holds 10,000 memories") });
    }
    const count = await env.DB.prepare("select count(*) as n from agent_memories where agent_id = ?").bind(agent.agentId).first<{ n: number }>();
    expect(count?.n).toBe(MEMORY_LIMITS.perAgent);
    // The saves taken back out of the batch left nothing in the index either.
    expect(await indexedRows(agent.agentId)).toBe(MEMORY_LIMITS.perAgent);
    await indexIsConsistent();
    // Search stays bounded at this size: a word in every memory still answers the best few.
    expect(await search(agent, "filler note number racing save", 20)).toHaveLength(20);

    // A lower bound passed to the service holds the same way.
    const small = await memoryAgent();
    await saveMemory(small.ctx, { agentId: small.agentId, text: "one" }, 1);
    await expect(saveMemory(small.ctx, { agentId: small.agentId, text: "two" }, 1)).rejects.toThrow("holds 1 memories");
  });

  it("reads every hostile query as plain words: no syntax error, no operator, no expansion", async () => {
    const agent = await memoryAgent();
    const either = await save(agent, "Either tea OR coffee, never NEAR the keyboard.");
    await save(agent, "Astronomy club meets at the observatory.");
    const hostile = [
      '"',
      '""',
      '"unterminated',
      "*",
      "a*",
      "astro*",
      "NEAR(tea coffee)",
      "NEAR(",
      "OR",
      "AND OR NOT",
      "tea NOT coffee",
      "-",
      "-tea",
      "tea:",
      "text: tea",
      "agent_id: anything",
      "{text agent_id}: tea",
      "^tea",
      "(",
      ")",
      "tea)",
      "'; drop table agent_memories; --",
      "\\",
      "+",
      "a".repeat(MEMORY_LIMITS.queryChars),
      Array.from({ length: 400 }, (_, i) => `word${i}`)
        .join(" ")
        .slice(0, MEMORY_LIMITS.queryChars),
      "日本語のテスト",
      "🙂🙃",
      "é",
      "\u0301",
      "\u0000tea",
      "tea\ud800",
      `${"x".repeat(1_999)}\ud83d`,
    ];
    for (const query of hostile) {
      await search(agent, query);
      expect(typeof (await recallForPrompt(agent.ctx, agent.agentId, query))).toBe("string");
      if (urlSafe(query)) {
        const response = await call(`/v1/agents/${agent.agentId}/memories?q=${encodeURIComponent(query)}`, { token: agent.key });
        expect(response.status, query.slice(0, 40)).toBe(200);
      }
    }
    // Operators are words: OR and NEAR find the memory that holds them; a prefix does not expand.
    expect(await search(agent, "OR")).toEqual([either]);
    expect(await search(agent, "NEAR(")).toEqual([either]);
    expect(await search(agent, "astro*")).toEqual([]);
    expect(await search(agent, "-tea")).toEqual([either]);
    // A search reads at most 16 distinct words, the longest ones, and leaves out the commonest.
    const many = queryTerms(`${Array.from({ length: 100 }, (_, i) => `w${i}`).join(" ")} observatory`);
    expect(many).toHaveLength(16);
    expect(many).toContain("observatory");
    expect(queryTerms("What is the capital of Peru?")).toEqual(["capital", "Peru"]);
    expect(queryTerms("AND OR NOT")).toEqual(["AND", "OR", "NOT"]);
  });
});

describe("GET and DELETE /v1/agents/{agent_id}/memories", () => {
  it("lists newest first, page by page, with where each came from", async () => {
    const agent = await memoryAgent();
    const ids = [
      await save(agent, "Weekly report goes to Anna.", { conversationId: 41 }),
      await save(agent, "The report template lives in Drive.", { executionId: "exe_abc" }),
      await save(agent, "Anna is on leave in August."),
      await save(agent, "Weekly sync moved to Tuesday; the report is due Monday."),
      await save(agent, "Budget review every quarter."),
    ];
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await listOf(agent, `?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen.map((memory) => memory.id)).toEqual([...ids].reverse());
    expect(seen[4]).toEqual({ id: ids[0], text: "Weekly report goes to Anna.", created_at: expect.any(String), source: { conversation_id: 41 } });
    expect(seen[3].source).toEqual({ execution_id: "exe_abc" });
    expect(seen[2].source).toEqual({});

    // q keeps the memories holding every word, newest first, and pages too.
    const filtered = await listOf(agent, `?q=${encodeURIComponent("weekly reports")}`);
    expect(filtered.data.map((memory: any) => memory.id)).toEqual([ids[3], ids[0]]);
    const first = await listOf(agent, "?q=report&limit=1");
    expect(first.data.map((memory: any) => memory.id)).toEqual([ids[3]]);
    const second = await listOf(agent, `?q=report&limit=2&cursor=${first.next_cursor}`);
    expect(second.data.map((memory: any) => memory.id)).toEqual([ids[1], ids[0]]);
    expect((await listOf(agent, "?q=")).data).toHaveLength(5);
    expect(await listOf(agent, `?q=${encodeURIComponent('"*"')}`)).toEqual({ data: [], next_cursor: null });
    await expectProblem(await call(`/v1/agents/${agent.agentId}/memories?q=${"a".repeat(2_001)}`, { token: agent.key }), 422, "validation_failed");
  });

  it("deletes one memory (204, then 404), which search and recall no longer find", async () => {
    const agent = await memoryAgent();
    const kept = await save(agent, "Invoices go out on the first.");
    const gone = await save(agent, "Invoices for Acme need a PO number.");
    const url = `/v1/agents/${agent.agentId}/memories/${gone}`;
    expect((await call(url, { token: agent.key, method: "DELETE" })).status).toBe(204);
    await expectProblem(await call(url, { token: agent.key, method: "DELETE" }), 404, "not_found");
    expect(await search(agent, "invoices Acme PO")).toEqual([kept]);
    expect(await recallForPrompt(agent.ctx, agent.agentId, "Acme PO number")).toBe("");
    expect(await indexedRows(agent.agentId)).toBe(1);
    // Another agent's memory id under this agent's path is not found either.
    const other = await memoryAgent();
    const theirs = await save(other, "Their note.");
    await expectProblem(await call(`/v1/agents/${agent.agentId}/memories/${theirs}`, { token: agent.key, method: "DELETE" }), 404, "not_found");
  });

  it("answers 404 for another user's agent or memory, and needs data:read to list, data:write to delete", async () => {
    const owner = await memoryAgent();
    const memoryId = await save(owner, "Private.");
    const stranger = await memoryAgent();
    await expectProblem(await call(`/v1/agents/${owner.agentId}/memories`, { token: stranger.key }), 404, "not_found");
    await expectProblem(await call(`/v1/agents/${owner.agentId}/memories/${memoryId}`, { token: stranger.key, method: "DELETE" }), 404, "not_found");
    await expectProblem(await call(`/v1/agents/${crypto.randomUUID()}/memories`, { token: owner.key }), 404, "not_found");

    const user = await newUser();
    const readOnly = (await newApiKey(user, { scopes: ["data:read"] })).key;
    await expectProblem(await call(`/v1/agents/${owner.agentId}/memories/${memoryId}`, { token: readOnly, method: "DELETE" }), 403, "insufficient_scope");
    expect((await listOf(owner)).data).toHaveLength(1);
  });

  it("goes with its agent: deleting the agent deletes its memories and their index entries", async () => {
    const agent = await memoryAgent();
    for (const text of ["First thing to remember.", "Second thing to remember.", "Third thing."]) await save(agent, text);
    const other = await memoryAgent();
    await save(other, "A thing another agent remembers.");
    expect(await indexedRows(agent.agentId)).toBe(3);

    expect((await call(`/v1/agents/${agent.agentId}`, { token: agent.key, method: "DELETE" })).status).toBe(204);
    const left = await env.DB.prepare("select count(*) as n from agent_memories where agent_id = ?").bind(agent.agentId).first<{ n: number }>();
    expect(left?.n).toBe(0);
    expect(await indexedRows(agent.agentId)).toBe(0);
    expect(await search(other, "thing remembers")).toHaveLength(1);
    await indexIsConsistent();
  });
});
