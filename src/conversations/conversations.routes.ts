import { z } from "@hono/zod-openapi";
import { PageQuery, decodeCursor, pageOf, paginate } from "../http/pagination";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { LIVE_STREAM_MS, MAX_LIVE_STREAMS } from "./conversation-object";
import { DEFAULT_MESSAGE_PAGE } from "./messages";
import { ConversationSchema, Content, ExplainBody, IdParam, MessageSchema, Provider, ToolCallBody } from "./schemas";
import { createConversation, deleteConversation, listConversations, presentConversation, renameConversation } from "./service";
import {
  SNAPSHOT_MESSAGES,
  checkToolCall,
  conversationDetail,
  conversationEvents,
  conversationMessages,
  explainMessage,
  sendMessage,
  sendMessageStreaming,
  stopTurn,
} from "./turns";

const list = authedRoute("data:read", {
  method: "get",
  path: "/conversations",
  tags: ["Conversations"],
  summary: "List conversations",
  description: "Metadata only, most recently updated first; paginated with `limit` and `cursor`.",
  request: { query: PageQuery },
  responses: { 200: { description: "Conversations", content: { "application/json": { schema: pageOf(ConversationSchema) } } } },
});

const create = authedRoute("data:write", {
  method: "post",
  path: "/conversations",
  tags: ["Conversations"],
  summary: "Create a conversation",
  description:
    "Without a title, one is made from the first message. With `agent_id` (one of your agents) the conversation talks to that agent: its turns use the agent's `agent_config` (instructions, provider, model, tools).",
  request: {
    body: {
      required: false,
      content: {
        "application/json": {
          schema: z.object({ title: z.string().trim().min(1).max(200).nullish(), agent_id: z.string().uuid().nullish() }),
        },
      },
    },
  },
  responses: {
    201: {
      description: "Created",
      content: { "application/json": { schema: z.object({ success: z.literal(true), id: z.number().int(), conversation: ConversationSchema }) } },
    },
    409: { description: "You hold as many conversations as an account may (MAX_CONVERSATIONS_PER_USER): `quota_exceeded`; delete one first." },
    ...notFoundError,
  },
});

const get = authedRoute("data:read", {
  method: "get",
  path: "/conversations/{conversation_id}",
  tags: ["Conversations"],
  summary: "Get a conversation",
  description: `Metadata, state, title and a snapshot of the last ${SNAPSHOT_MESSAGES} messages.`,
  request: { params: IdParam },
  responses: {
    200: {
      description: "The conversation",
      content: {
        "application/json": {
          schema: ConversationSchema.extend({
            status: z
              .enum(["idle", "processing", "awaiting_approval"])
              .openapi({ description: "Whether a turn is running now, or waits for approvals (`awaiting_approval`)." }),
            pending_turns: z.number().int(),
            messages: z.array(MessageSchema),
          }),
        },
      },
    },
    ...notFoundError,
  },
});

const rename = authedRoute("data:write", {
  method: "patch",
  path: "/conversations/{conversation_id}",
  tags: ["Conversations"],
  summary: "Update a conversation's title",
  request: { params: IdParam, body: { required: true, content: { "application/json": { schema: z.object({ title: z.string().trim().min(1).max(200) }) } } } },
  responses: { 200: { description: "Updated", content: { "application/json": { schema: ConversationSchema } } }, ...notFoundError },
});

const remove = authedRoute("data:write", {
  method: "delete",
  path: "/conversations/{conversation_id}",
  tags: ["Conversations"],
  summary: "Delete a conversation and its messages",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...notFoundError },
});

const send = authedRoute("workflow:execute", {
  method: "post",
  path: "/conversations/{conversation_id}/messages",
  tags: ["Conversations"],
  summary: "Send a message",
  description:
    "Stores the message and hands it to the agent loop, which asks the model, runs the tool calls of each answer together (each result stored as a `tool` message) for at most `agent_config.max_steps` model requests (default 10), and answers with the assistant's message (`tools_called`, summed `tokens_used`, `status`). Messages to one conversation are processed one after another. A provider failure gives an assistant message with status `error`, as does a model call on the deployment's own key past the per-minute limit (MODEL_RATE_LIMIT_PER_MINUTE; its message says when to retry); a turn stopped with `POST …/stop` gives status `stopped`.\n\nWith `Accept: text/event-stream` the answer is 200 `text/event-stream` carrying the turn as it happens, every event with an `id:`: `message` {message} (each stored message), `delta` {round, text} (the answer's text as the model produces it; the deltas of the last round, joined, are the stored answer's `content`), `tool_started` {tool_call_id, name, arguments}, `tool_progress`, `tool_finished` {tool_call_id, name, success, duration_ms}, `status`, and last `turn_finished` {message_id, status}, after which the stream ends. The turn goes on if the client goes away: read it again with `GET …/stream` and `Last-Event-ID`.",
  request: { params: IdParam, body: { required: true, content: { "application/json": { schema: z.object({ content: Content, provider: Provider }) } } } },
  responses: {
    200: { description: "With `Accept: text/event-stream`: the turn's events", content: { "text/event-stream": { schema: z.string() } } },
    201: { description: "The assistant's reply", content: { "application/json": { schema: MessageSchema } } },
    ...notFoundError,
  },
});

const stopTurnRoute = authedRoute("workflow:execute", {
  method: "post",
  path: "/conversations/{conversation_id}/stop",
  tags: ["Conversations"],
  summary: "Stop the running turn",
  description:
    'Aborts the model request in flight (the provider sees its connection closed); no tool call starts after it, calls already running finish and are stored, and the assistant message is stored with `status: "stopped"` and the text produced so far. 409 `conflict` when no turn is running.',
  request: { params: IdParam },
  responses: {
    202: {
      description: "Stopping",
      content: { "application/json": { schema: z.object({ conversation_id: z.number().int(), status: z.literal("stopping") }) } },
    },
    409: { description: "No turn is running: `conflict`." },
    ...notFoundError,
  },
});

const messages = authedRoute("data:read", {
  method: "get",
  path: "/conversations/{conversation_id}/messages",
  tags: ["Conversations"],
  summary: "List messages",
  description: `Chronological, all roles, one page at a time: \`limit\` messages (default ${DEFAULT_MESSAGE_PAGE}, at most 1000) after the message \`after_id\` (default: from the first). To read a whole history, pass the last id you received as \`after_id\` until a page comes back shorter than \`limit\`; the latest ${SNAPSHOT_MESSAGES} messages are also in \`GET /conversations/{conversation_id}\`.`,
  request: {
    params: IdParam,
    query: z.object({
      after_id: z.coerce
        .number()
        .int()
        .min(0)
        .optional()
        .openapi({ param: { name: "after_id", in: "query" } }),
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(1000)
        .optional()
        .openapi({ param: { name: "limit", in: "query" }, description: `Messages in the page (default ${DEFAULT_MESSAGE_PAGE}).` }),
    }),
  },
  responses: { 200: { description: "Messages", content: { "application/json": { schema: z.array(MessageSchema) } } }, ...notFoundError },
});

const stream = authedRoute("data:read", {
  method: "get",
  path: "/conversations/{conversation_id}/stream",
  tags: ["Conversations"],
  summary: "Live updates (SSE)",
  description: `Server-Sent Events for every client of the conversation, each with an \`id:\` that grows per conversation: \`status\` ({status}), \`message\` ({message}: each stored message), \`delta\` ({round, text}), \`tool_started\`, \`tool_progress\` ({tool_call_id, name, progress}), \`tool_finished\`, \`turn_finished\` ({message_id, status}), and \`ready\` ({conversation_id, status, last_event_id}) once the stream has caught up. With \`Last-Event-ID: n\` (or \`?last_event_id=n\`) every held event after \`n\` comes first, in order, with no gap and no repeat, then live ones; at least the last 1,000 events and every event of a turn in progress are held, and an older \`n\` starts with \`reset\` {oldest_id}. The stream ends after ${LIVE_STREAM_MS / 60_000} minutes, because the credential is checked only when it opens: reconnect to go on (EventSource does so by itself, sending Last-Event-ID). A conversation serves at most ${MAX_LIVE_STREAMS} streams at once: one more is refused with 429 \`rate_limited\` and Retry-After (the seconds until the first open stream ends).`,
  request: {
    params: IdParam,
    query: z.object({
      last_event_id: z.coerce
        .number()
        .int()
        .min(0)
        .optional()
        .openapi({ param: { name: "last_event_id", in: "query" }, description: "Resume after this event (as the Last-Event-ID header)." }),
    }),
  },
  responses: {
    200: { description: "Server-Sent Events", content: { "text/event-stream": { schema: z.string() } } },
    429: { description: `${MAX_LIVE_STREAMS} streams of this conversation are open already: \`rate_limited\`, with Retry-After.` },
    ...notFoundError,
  },
});

const validateToolCall = authedRoute("data:read", {
  method: "post",
  path: "/conversations/{conversation_id}/validate-tool-call",
  tags: ["Conversations"],
  summary: "Validate a tool call without running it",
  description:
    "Checks that the tool exists for the caller, that its connection is usable and that the arguments fit its schema. Nothing runs and no tool-call budget is spent.",
  request: { params: IdParam, body: { required: true, content: { "application/json": { schema: ToolCallBody } } } },
  responses: {
    200: {
      description: "The verdict",
      content: {
        "application/json": {
          schema: z.object({
            valid: z.boolean(),
            errors: z.array(z.object({ field: z.string(), message: z.string() })),
            tool: z.object({ name: z.string(), connection_id: z.number().int().nullable() }).nullable(),
          }),
        },
      },
    },
    ...notFoundError,
  },
});

const explainIntent = authedRoute("data:read", {
  method: "post",
  path: "/conversations/{conversation_id}/explain-intent",
  tags: ["Conversations"],
  summary: "Explain the intent classification of a message",
  description:
    "The hub's deterministic intent router: label (run_tool, build_workflow, question, greeting, other), confidence and reasoning. Nothing is stored.",
  request: { params: IdParam, body: { required: true, content: { "application/json": { schema: ExplainBody } } } },
  responses: {
    200: {
      description: "The classification",
      content: {
        "application/json": {
          schema: z.object({ intent: z.string(), confidence: z.number(), reasoning: z.string(), candidate_tools: z.array(z.string()), provider: z.string() }),
        },
      },
    },
    ...notFoundError,
  },
});

const explainTools = authedRoute("data:read", {
  method: "post",
  path: "/conversations/{conversation_id}/explain-tools",
  tags: ["Conversations"],
  summary: "Explain which tools are relevant to a message",
  description:
    "Which tool definitions the first model request would carry if this message were sent now, after the conversation so far, and why (DESIGN §6.1): " +
    "when the tools the conversation may use number at most 20, all of them (`reason: all`); otherwise at most 16: `search_tools` (which searches the whole catalog), " +
    "the tools the conversation already called or found with search_tools (`used_or_found`, newest first), then the best ranked for its recent user messages " +
    "and the assistant's latest answer (`ranked`). `tools` ranks the catalog for this message alone. Scores are BM25 over the tools' names, platforms, titles, " +
    "descriptions and parameter names (stemmed), adjusted for the action and platform the message names: higher is better, comparable within one answer. Nothing is stored.",
  request: { params: IdParam, body: { required: true, content: { "application/json": { schema: ExplainBody } } } },
  responses: {
    200: {
      description: "The tools a request would carry, and the ranking for the message",
      content: {
        "application/json": {
          schema: z.object({
            tools: z.array(
              z.object({
                name: z.string(),
                score: z.number(),
                reason: z.string().describe("The message's words the tool matches, and in which of its fields"),
              }),
            ),
            offered: z.array(
              z.object({
                name: z.string(),
                reason: z.enum(["all", "search_tools", "used_or_found", "ranked"]),
                score: z.number().nullable().describe("The ranking's score for the conversation, when it ranked the tool"),
              }),
            ),
            search_tools: z.boolean().describe("Whether the request carries search_tools: only when the catalog has more than 20 tools"),
            catalog_size: z.number().int().describe("Available tools the conversation may use"),
            provider: z.string(),
          }),
        },
      },
    },
    ...notFoundError,
  },
});

export const conversationRoutes = createRouter()
  .openapi(list, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const after = decodeCursor(cursor, z.object({ u: z.number(), id: z.number().int() }));
    const rows = await listConversations(c.var.ctx, limit + 1, after);
    const { page, nextCursor } = paginate(rows, limit, (row) => ({ u: row.updatedAt.getTime(), id: row.id }));
    return c.json({ data: page.map(presentConversation), next_cursor: nextCursor }, 200);
  })
  .openapi(create, async (c) => {
    const body = c.req.valid("json") as { title?: string | null; agent_id?: string | null } | undefined;
    const row = await createConversation(c.var.ctx, body?.title ?? null, body?.agent_id);
    return c.json({ success: true as const, id: row.id, conversation: presentConversation(row) }, 201);
  })
  .openapi(get, async (c) => c.json(await conversationDetail(c.var.ctx, c.req.valid("param").conversation_id), 200))
  .openapi(rename, async (c) => {
    const row = await renameConversation(c.var.ctx, c.req.valid("param").conversation_id, c.req.valid("json").title);
    return c.json(presentConversation(row), 200);
  })
  .openapi(remove, async (c) => {
    await deleteConversation(c.var.ctx, c.req.valid("param").conversation_id);
    return c.body(null, 204);
  })
  .openapi(send, async (c) => {
    const id = c.req.valid("param").conversation_id;
    const message = { ...c.req.valid("json"), origin: new URL(c.req.url).origin };
    if (wantsEventStream(c.req.header("Accept"))) return eventStream(await sendMessageStreaming(c.var.ctx, id, message)) as any;
    return c.json(await sendMessage(c.var.ctx, id, message), 201);
  })
  .openapi(stopTurnRoute, async (c) => {
    const id = c.req.valid("param").conversation_id;
    await stopTurn(c.var.ctx, id);
    return c.json({ conversation_id: id, status: "stopping" as const }, 202);
  })
  .openapi(messages, async (c) => {
    const { after_id, limit } = c.req.valid("query");
    return c.json(await conversationMessages(c.var.ctx, c.req.valid("param").conversation_id, { afterId: after_id, limit }), 200);
  })
  .openapi(stream, async (c) => {
    const lastEventId = lastEventIdOf(c.req.header("Last-Event-ID"), c.req.valid("query").last_event_id);
    return eventStream(await conversationEvents(c.var.ctx, c.req.valid("param").conversation_id, lastEventId)) as any;
  })
  .openapi(validateToolCall, async (c) => c.json(await checkToolCall(c.var.ctx, c.req.valid("param").conversation_id, c.req.valid("json")), 200))
  .openapi(explainIntent, async (c) => {
    const explained = await explainMessage(c.var.ctx, c.req.valid("param").conversation_id, c.req.valid("json"));
    return c.json({ ...explained.intent(), provider: explained.provider }, 200);
  })
  .openapi(explainTools, async (c) => {
    const explained = await explainMessage(c.var.ctx, c.req.valid("param").conversation_id, c.req.valid("json"));
    return c.json({ ...(await explained.tools()), provider: explained.provider }, 200);
  });

const eventStream = (body: ReadableStream<Uint8Array>) =>
  new Response(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no" } });

/** Whether the client asks for the turn as events (an Accept that names text/event-stream). */
const wantsEventStream = (accept: string | undefined) => /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept ?? "");

/** The header wins over the query (EventSource sends the header on its own reconnects); a malformed header is ignored. */
function lastEventIdOf(header: string | undefined, query: number | undefined): number | undefined {
  const fromHeader = header?.trim();
  return fromHeader && /^\d{1,15}$/.test(fromHeader) ? Number(fromHeader) : query;
}
