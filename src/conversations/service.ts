import { and, desc, eq, lt, or } from "drizzle-orm";
import type { Bindings, ServiceContext } from "../core/context";
import { agents, conversations, type Conversation } from "../db/schema";
import { insertWithinQuota } from "../db/quota";
import { HubError, notFound } from "../core/errors";
import type { ConversationObject } from "./conversation-object";

/**
 * The conversation's Durable Object, typed by its own methods: workers-types would turn the
 * free-form JSON in messages (`unknown`) into `never` on the RPC surface.
 */
type Remote<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never };
export type ConversationRpc = Remote<
  Pick<ConversationObject, "send" | "sendStreaming" | "stop" | "messages" | "latestMessages" | "snapshot" | "stream" | "erase">
>;

export function conversationStub(bindings: Pick<Bindings, "CONVERSATIONS">, id: number): ConversationRpc {
  return bindings.CONVERSATIONS.get(bindings.CONVERSATIONS.idFromName(`conversation:${id}`)) as unknown as ConversationRpc;
}

/**
 * Creates a conversation for the caller, within the account's quota (MAX_CONVERSATIONS_PER_USER).
 * With `agentId` (one of the caller's agents) it talks to that agent: its turns use the agent's
 * agent_config (instructions, provider, model, tools).
 */
export async function createConversation(ctx: ServiceContext, title: string | null, agentId?: string | null): Promise<Conversation> {
  const maxConversations = ctx.config.quotas.conversationsPerUser;
  const held = eq(conversations.userId, ctx.workspace.id);
  const full = () => new HubError("quota_exceeded", `An account can hold at most ${maxConversations} conversations; delete one first.`);
  if ((await ctx.db.$count(conversations, held)) >= maxConversations) throw full();
  if (agentId) {
    const agent = await ctx.db
      .select({ id: agents.id })
      .from(agents)
      .where(and(eq(agents.id, agentId), eq(agents.userId, ctx.workspace.id)))
      .get();
    if (!agent) throw notFound("Agent");
  }
  const insert = ctx.db
    .insert(conversations)
    .values({ userId: ctx.workspace.id, title, agentId: agentId ?? null })
    .returning();
  const row = await insertWithinQuota<Conversation>(ctx.db, insert, conversations, held, maxConversations);
  if (!row) throw full();
  return row;
}

/** The caller's conversation, or 404 (another user's conversation is not revealed). */
export async function getOwnedConversation(ctx: ServiceContext, id: number): Promise<Conversation> {
  const row = await ctx.db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, ctx.workspace.id)))
    .get();
  if (!row) throw notFound("Conversation");
  return row;
}

/** Most recently updated first; the cursor is the last row's (updated_at, id). */
export function listConversations(ctx: ServiceContext, limit: number, after?: { u: number; id: number }): Promise<Conversation[]> {
  const position = after
    ? or(lt(conversations.updatedAt, new Date(after.u)), and(eq(conversations.updatedAt, new Date(after.u)), lt(conversations.id, after.id)))
    : undefined;
  return ctx.db
    .select()
    .from(conversations)
    .where(and(eq(conversations.userId, ctx.workspace.id), position))
    .orderBy(desc(conversations.updatedAt), desc(conversations.id))
    .limit(limit)
    .all();
}

export async function renameConversation(ctx: ServiceContext, id: number, title: string): Promise<Conversation> {
  const [row] = await ctx.db
    .update(conversations)
    .set({ title, updatedAt: new Date() })
    .where(and(eq(conversations.id, id), eq(conversations.userId, ctx.workspace.id)))
    .returning();
  if (!row) throw notFound("Conversation");
  return row;
}

export async function deleteConversation(ctx: ServiceContext, id: number): Promise<void> {
  const deleted = await ctx.db
    .delete(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, ctx.workspace.id)))
    .returning({ id: conversations.id });
  if (deleted.length === 0) throw notFound("Conversation");
  await conversationStub(ctx.bindings, id).erase();
}

export function presentConversation(row: Conversation) {
  return {
    id: row.id,
    title: row.title,
    agent_id: row.agentId,
    state: row.state,
    message_count: row.messageCount,
    last_message_preview: row.lastMessagePreview,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
