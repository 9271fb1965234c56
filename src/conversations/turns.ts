import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { toolRefusal } from "../llm/agent-config";
import { checkProviderChoice, resolveProvider } from "../llm/providers";
import { explainToolChoice } from "../agent-loop/tools";
import { catalogFor } from "../tools/catalog-service";
import { prepareToolCall } from "../tools/executor";
import { MAX_LIVE_STREAMS, MAX_PENDING_TURNS } from "./conversation-object";
import { agentCatalog, agentProviderChoice, conversationAgentSettings } from "./agent-settings";
import { toChatHistory } from "./history";
import { classifyIntent } from "./intent";
import { conversationStub, getOwnedConversation, presentConversation } from "./service";

export const SNAPSHOT_MESSAGES = 100;

/** The conversation with its live status and latest messages (kept by its Durable Object). */
export async function conversationDetail(ctx: ServiceContext, id: number) {
  const { detail } = await conversationWithEvents(ctx, id);
  return detail;
}

/**
 * conversationDetail, and where its event log stood when those messages were read: the newest
 * event id, and the id just before the running turn's first event (null when none runs), from
 * which a page that shows these messages follows the turn in progress.
 */
export async function conversationWithEvents(ctx: ServiceContext, id: number) {
  const row = await getOwnedConversation(ctx, id);
  const snapshot = await conversationStub(ctx.bindings, id).snapshot(id, SNAPSHOT_MESSAGES);
  return {
    detail: { ...presentConversation(row), status: snapshot.status, pending_turns: snapshot.pending_turns, messages: snapshot.messages },
    events: { last_event_id: snapshot.last_event_id, turn_started_after: snapshot.turn_started_after },
  };
}

/**
 * Sends a message and waits for the turn's answer. The turn runs in the conversation's Durable
 * Object with the caller's credential; an unknown or unconfigured provider is refused before
 * anything is stored.
 */
export async function sendMessage(ctx: ServiceContext, id: number, input: MessageInput) {
  await readyToSend(ctx, id, input.provider);
  return notBusy(await conversationStub(ctx.bindings, id).send(turnInput(ctx, id, input)));
}

/** As sendMessage, answering at once with the turn's events as server-sent events (DESIGN §6.1). */
export async function sendMessageStreaming(ctx: ServiceContext, id: number, input: MessageInput) {
  await readyToSend(ctx, id, input.provider);
  return notBusy(await conversationStub(ctx.bindings, id).sendStreaming(turnInput(ctx, id, input)));
}

/** The conversation is the caller's (404 first, whatever else is wrong) and the provider is one they can use (422). */
async function readyToSend(ctx: ServiceContext, id: number, provider: string | null | undefined) {
  const owned = getOwnedConversation(ctx, id);
  const usable = checkProviderChoice(ctx, provider);
  usable.catch(() => undefined);
  await owned;
  await usable;
}

/** A message to send; `origin` is the hub's as the request reached it (for links in approval emails). */
interface MessageInput {
  content: string;
  provider?: string | null;
  origin?: string;
}

const turnInput = (ctx: ServiceContext, id: number, input: MessageInput) => ({
  conversationId: id,
  userId: ctx.workspace.id,
  credentialId: ctx.credential.id,
  content: input.content,
  provider: input.provider ?? null,
  origin: input.origin,
});

function notBusy<T>(answer: T | { busy: true } | { awaiting: string[] }): T {
  if (answer && typeof answer === "object" && "busy" in answer)
    throw new HubError("rate_limited", `A conversation holds at most ${MAX_PENDING_TURNS} turns at once; wait for one to finish.`, { retryAfterSeconds: 5 });
  // The waiting turn goes on by itself once its calls are decided; a new message would land in its middle.
  if (answer && typeof answer === "object" && "awaiting" in answer)
    throw new HubError(
      "conflict",
      `The conversation's last turn waits for approval of ${answer.awaiting.join(", ")}; decide them (POST /v1/approvals/{id}/decision) and it goes on by itself.`,
    );
  return answer as T;
}

/** Stops the conversation's running turn; 409 when none is running. */
export async function stopTurn(ctx: ServiceContext, id: number): Promise<void> {
  await getOwnedConversation(ctx, id);
  if (!(await conversationStub(ctx.bindings, id).stop())) throw new HubError("conflict", "No turn of this conversation is running.");
}

/** One page of the conversation's messages, chronological (see `MessageStore.list`). */
export async function conversationMessages(ctx: ServiceContext, id: number, page: { afterId?: number; limit?: number }) {
  await getOwnedConversation(ctx, id);
  return conversationStub(ctx.bindings, id).messages(id, page);
}

/** Messages a workflow is extracted from: the conversation's latest, so a long history costs no more. */
export const EXTRACTED_MESSAGES = 200;

/** The conversation's last `limit` messages, oldest first. */
export async function latestMessages(ctx: ServiceContext, id: number, limit: number) {
  await getOwnedConversation(ctx, id);
  return conversationStub(ctx.bindings, id).latestMessages(id, limit);
}

/**
 * The conversation's live events (server-sent events), from its Durable Object: closed after
 * LIVE_STREAM_MS, and refused with 429 while MAX_LIVE_STREAMS are open (Retry-After: until the
 * first of them closes).
 */
export async function conversationEvents(ctx: ServiceContext, id: number, lastEventId?: number): Promise<ReadableStream<Uint8Array>> {
  await getOwnedConversation(ctx, id);
  const opened = await conversationStub(ctx.bindings, id).stream(id, lastEventId);
  if (opened instanceof ReadableStream) return opened;
  throw new HubError("rate_limited", `A conversation serves at most ${MAX_LIVE_STREAMS} live streams at once; close one or try again later.`, {
    retryAfterSeconds: opened.retryAfterSeconds,
  });
}

/**
 * Whether a tool call would be accepted, without running it or spending the tool-call limit:
 * the refusal a real call would get, as field errors. Being over the limit is still an error.
 */
export async function checkToolCall(ctx: ServiceContext, id: number, input: { name: string; arguments?: unknown }) {
  await getOwnedConversation(ctx, id);
  const refusal = toolRefusal(await conversationAgentSettings(ctx, id), input.name);
  if (refusal) return { valid: false, errors: [{ field: "name", message: refusal }], tool: null };
  try {
    const { call } = await prepareToolCall(ctx, input.name, input.arguments, { charge: false });
    return { valid: true, errors: [], tool: { name: call.name, connection_id: call.connection?.id ?? null } };
  } catch (error) {
    if (!(error instanceof HubError) || error.code === "rate_limited") throw error;
    const errors = error.errors?.map((e) => ({ field: e.field, message: e.message })) ?? [
      { field: error.code === "not_found" ? "name" : "", message: error.message },
    ];
    return { valid: false, errors, tool: error.code === "not_found" ? null : { name: input.name, connection_id: null } };
  }
}

/** Messages read back to explain which tools a message would be offered: more than the ranking reads (DESIGN §6.1). */
const EXPLAINED_HISTORY = 40;

/** How the hub reads a message: the intent it sees and the tools it would offer. */
export async function explainMessage(ctx: ServiceContext, id: number, input: { content: string; provider?: string | null }) {
  await getOwnedConversation(ctx, id);
  const agent = await conversationAgentSettings(ctx, id);
  const choice = agentProviderChoice(input.provider ?? null, agent);
  const provider = await resolveProvider(ctx, choice.provider, choice.model);
  const catalog = agentCatalog(await catalogFor(ctx), agent);
  return {
    provider: provider.id,
    intent: () => classifyIntent(input.content, catalog),
    /** The first model request's tools if this message were sent now, after the conversation so far. */
    tools: async () => {
      const records = await conversationStub(ctx.bindings, id).latestMessages(id, EXPLAINED_HISTORY);
      const explained = explainToolChoice(catalog, [...toChatHistory(records), { role: "user", content: input.content }]);
      return {
        tools: explained.ranked,
        offered: explained.offered,
        search_tools: explained.searchTools,
        catalog_size: catalog.filter((t) => t.available).length,
      };
    },
  };
}
