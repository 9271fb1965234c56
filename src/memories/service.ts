import { and, desc, eq, getTableColumns, inArray, lt } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { HubError, notFound } from "../core/errors";
import { insertWithinQuota } from "../db/quota";
import { type AgentMemory, agentMemories, agents } from "../db/schema";
import { pageById } from "../http/pagination";
import { memoryMatch, queryTerms } from "./fts-query";
import { matches, memoryIndex, relevance } from "./fts";
import { MEMORY_LIMITS } from "./limits";
import { presentMemory } from "./present";

/** Where a memory was saved from, when it was: a chat turn or an `agent` step of a run. */
export interface MemorySource {
  conversationId?: number | null;
  executionId?: string | null;
}

/** One of the caller's agents, with its agent_config; another user's (or none) is 404. */
export async function memoryOwner(ctx: ServiceContext, agentId: string): Promise<{ id: string; config: Record<string, unknown> }> {
  const row = await ctx.db
    .select({ id: agents.id, config: agents.config })
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.userId, ctx.workspace.id)))
    .get();
  if (!row) throw notFound("Agent");
  return row;
}

/**
 * Saves a memory for one of the caller's agents: at most MEMORY_LIMITS.textChars characters, and
 * at most `perAgent` memories per agent, held under concurrent saves (insertWithinQuota counts in
 * the batch of the insert, so two saves at 9,999 cannot both pass). `perAgent` is a parameter so
 * a test can reach the bound without ten thousand rows.
 */
export async function saveMemory(
  ctx: ServiceContext,
  input: { agentId: string; text: string } & MemorySource,
  perAgent: number = MEMORY_LIMITS.perAgent,
): Promise<AgentMemory> {
  const text = input.text.trim();
  if (!text) throw new HubError("validation_failed", "A memory needs some text.");
  if (text.length > MEMORY_LIMITS.textChars) {
    throw new HubError(
      "limit_exceeded",
      `A memory holds at most ${MEMORY_LIMITS.textChars.toLocaleString("en")} characters; this one has ${text.length.toLocaleString("en")}. Save a shorter note.`,
    );
  }
  await memoryOwner(ctx, input.agentId);
  const held = eq(agentMemories.agentId, input.agentId);
  const full = () =>
    new HubError(
      "quota_exceeded",
      `This agent holds ${perAgent.toLocaleString("en")} memories, the most it may; delete some (DELETE /v1/agents/{agent_id}/memories/{memory_id}) before saving more.`,
    );
  if ((await ctx.db.$count(agentMemories, held)) >= perAgent) throw full();
  const insert = ctx.db
    .insert(agentMemories)
    .values({
      agentId: input.agentId,
      userId: ctx.workspace.id,
      text,
      conversationId: input.conversationId ?? null,
      executionId: input.executionId ?? null,
    })
    .returning();
  const saved = await insertWithinQuota<AgentMemory>(ctx.db, insert, agentMemories, held, perAgent);
  if (!saved) throw full();
  return saved;
}

/** Clamps a requested number of results to 1–maxSearchResults (default: defaultSearchResults). */
export function searchLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return MEMORY_LIMITS.defaultSearchResults;
  return Math.min(Math.max(Math.trunc(limit), 1), MEMORY_LIMITS.maxSearchResults);
}

/**
 * The agent's memories that hold any word of `query`, most relevant first (BM25; newer first
 * among equals). A query with no word in it finds nothing. The caller must own the agent
 * (memoryOwner); the user id in the query is a second lock, not the check.
 */
export async function searchMemories(ctx: ServiceContext, agentId: string, query: string, limit?: number): Promise<AgentMemory[]> {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  return ctx.db
    .select(getTableColumns(agentMemories))
    .from(memoryIndex)
    .innerJoin(agentMemories, eq(agentMemories.id, memoryIndex.rowid))
    .where(and(matches(memoryMatch(agentId, terms, "OR")), eq(agentMemories.userId, ctx.workspace.id)))
    .orderBy(relevance, desc(agentMemories.id))
    .limit(searchLimit(limit))
    .all();
}

/**
 * One page of the agent's memories, newest first; with `q`, only those holding every word of it
 * (a filter narrows, unlike a search, which ranks). A `q` with no word in it (only punctuation)
 * matches nothing.
 */
export async function listMemories(ctx: ServiceContext, agentId: string, query: { limit: number; cursor?: string; q?: string }) {
  await memoryOwner(ctx, agentId);
  // An empty `?q=` is no filter, as if it were left out.
  const terms = query.q?.trim() ? queryTerms(query.q) : undefined;
  if (terms?.length === 0) return { data: [], next_cursor: null };
  const matching = terms
    ? ctx.db
        .select({ id: memoryIndex.rowid })
        .from(memoryIndex)
        .where(matches(memoryMatch(agentId, terms, "AND")))
    : undefined;
  return pageById(
    query,
    (count, beforeId) =>
      ctx.db
        .select()
        .from(agentMemories)
        .where(
          and(
            eq(agentMemories.agentId, agentId),
            eq(agentMemories.userId, ctx.workspace.id),
            beforeId === undefined ? undefined : lt(agentMemories.id, beforeId),
            matching ? inArray(agentMemories.id, matching) : undefined,
          ),
        )
        .orderBy(desc(agentMemories.id))
        .limit(count)
        .all(),
    presentMemory,
  );
}

/** Deletes one memory of one of the caller's agents (its index entry goes with it, by trigger). */
export async function deleteMemory(ctx: ServiceContext, agentId: string, memoryId: number): Promise<void> {
  await memoryOwner(ctx, agentId);
  const deleted = await ctx.db
    .delete(agentMemories)
    .where(and(eq(agentMemories.id, memoryId), eq(agentMemories.agentId, agentId), eq(agentMemories.userId, ctx.workspace.id)))
    .returning({ id: agentMemories.id });
  if (deleted.length === 0) throw notFound("Memory");
}
