import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../http/app-env";
import { HubError } from "../core/errors";
import { PageQuery, decodeCursor, pageOf, paginate } from "../http/pagination";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { IntIdParam, Timestamp } from "../http/schemas";
import { resolveProvider } from "../llm/providers";
import { catalogFor } from "../tools/catalog-service";
import { prepareToolCall } from "../tools/executor";
import { rankTools } from "../llm/tool-ranking";
import { classifyIntent } from "./intent";
import {
  conversationStub,
  createConversation,
  deleteConversation,
  getOwnedConversation,
  listConversations,
  presentConversation,
  renameConversation,
} from "./service";

export const MAX_MESSAGE_CHARS = 32_000;
const SNAPSHOT_MESSAGES = 100;

const ToolCallSchema = z
  .object({
    id: z.string().openapi({ description: "The tool_call_id of the matching tool message." }),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    round: z.number().int(),
    success: z.boolean(),
    error_message: z.string().nullable(),
    duration_ms: z.number().int(),
    call_id: z.string().nullable().openapi({ description: "The audit log's call_id." }),
  })
  .openapi("ToolCall");

export const MessageSchema = z
  .object({
    id: z.number().int(),
    conversation_id: z.number().int(),
    role: z.enum(["user", "assistant", "tool", "system"]),
    content: z.string(),
    status: z.enum(["received", "completed", "error"]),
    tokens_used: z.number().int(),
    tools_called: z.array(ToolCallSchema),
    tool_call_id: z.string().nullable(),
    error_message: z.string().nullable(),
    provider: z.string().nullable(),
    model: z.string().nullable(),
    created_at: Timestamp,
  })
  .openapi("Message");

const ConversationSchema = z
  .object({
    id: z.number().int(),
    title: z.string().nullable(),
    state: z.enum(["idle", "processing"]),
    message_count: z.number().int(),
    last_message_preview: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("Conversation");

const Content = z.string().trim().min(1).max(MAX_MESSAGE_CHARS);
const Provider = z.string().max(50).nullish().openapi({ description: "Overrides the user's default provider for this call." });
const IdParam = IntIdParam("conversation_id");

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
  description: "Without a title, one is made from the first message.",
  request: { body: { required: false, content: { "application/json": { schema: z.object({ title: z.string().trim().min(1).max(200).nullish() }) } } } },
  responses: {
    201: {
      description: "Created",
      content: { "application/json": { schema: z.object({ success: z.literal(true), id: z.number().int(), conversation: ConversationSchema }) } },
    },
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
            status: z.enum(["idle", "processing"]).openapi({ description: "Whether a turn is running now." }),
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
    "Stores the message and hands it to the orchestrator, which may call tools (each stored as a `tool` message) over a bounded number of rounds, and answers with the assistant's message (`tools_called`, summed `tokens_used`, `status`). Messages to one conversation are processed one after another. A provider failure gives an assistant message with status `error`.",
  request: { params: IdParam, body: { required: true, content: { "application/json": { schema: z.object({ content: Content, provider: Provider }) } } } },
  responses: { 201: { description: "The assistant's reply", content: { "application/json": { schema: MessageSchema } } }, ...notFoundError },
});

const messages = authedRoute("data:read", {
  method: "get",
  path: "/conversations/{conversation_id}/messages",
  tags: ["Conversations"],
  summary: "List messages",
  description: "Every message, chronological, all roles. `after_id` and `limit` page through long histories.",
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
        .openapi({ param: { name: "limit", in: "query" } }),
    }),
  },
  responses: { 200: { description: "Messages", content: { "application/json": { schema: z.array(MessageSchema) } } }, ...notFoundError },
});

const stream = authedRoute("data:read", {
  method: "get",
  path: "/conversations/{conversation_id}/stream",
  tags: ["Conversations"],
  summary: "Live updates (SSE)",
  description:
    "Server-Sent Events for every client of the conversation: `ready`, `status` ({status}), `message` (each stored message), `tool_started` and `tool_progress` ({tool_call_id, name, progress}).",
  request: { params: IdParam },
  responses: { 200: { description: "Server-Sent Events", content: { "text/event-stream": { schema: z.string() } } }, ...notFoundError },
});

const ToolCallBody = z.object({ name: z.string().min(1).max(200), arguments: z.record(z.string(), z.unknown()).default({}) });

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

const ExplainBody = z.object({ content: Content, provider: Provider });

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
  description: "The tools the orchestrator would rank first for this message, with score (0–1) and the reason.",
  request: { params: IdParam, body: { required: true, content: { "application/json": { schema: ExplainBody } } } },
  responses: {
    200: {
      description: "Ranked tools",
      content: {
        "application/json": {
          schema: z.object({ tools: z.array(z.object({ name: z.string(), score: z.number(), reason: z.string() })), provider: z.string() }),
        },
      },
    },
    ...notFoundError,
  },
});

const providerContext = (c: Context<AppEnv>) => ({ env: c.env, config: c.get("config"), db: c.get("db"), userId: c.get("principal").userId });

export const conversationRoutes = createRouter()
  .openapi(list, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const after = decodeCursor(cursor, z.object({ u: z.number(), id: z.number().int() }));
    const rows = await listConversations(c.get("db"), c.get("principal").userId, limit + 1, after);
    const { page, nextCursor } = paginate(rows, limit, (row) => ({ u: row.updatedAt.getTime(), id: row.id }));
    return c.json({ data: page.map(presentConversation), next_cursor: nextCursor }, 200);
  })
  .openapi(create, async (c) => {
    const title = (c.req.valid("json") as { title?: string | null } | undefined)?.title;
    const row = await createConversation(c.get("db"), c.get("principal").userId, title ?? null);
    return c.json({ success: true as const, id: row.id, conversation: presentConversation(row) }, 201);
  })
  .openapi(get, async (c) => {
    const { conversation_id } = c.req.valid("param");
    const row = await getOwnedConversation(c.get("db"), c.get("principal").userId, conversation_id);
    const snapshot = await conversationStub(c.env, conversation_id).snapshot(conversation_id, SNAPSHOT_MESSAGES);
    return c.json({ ...presentConversation(row), status: snapshot.status, pending_turns: snapshot.pending_turns, messages: snapshot.messages }, 200);
  })
  .openapi(rename, async (c) => {
    const row = await renameConversation(c.get("db"), c.get("principal").userId, c.req.valid("param").conversation_id, c.req.valid("json").title);
    return c.json(presentConversation(row), 200);
  })
  .openapi(remove, async (c) => {
    await deleteConversation(c.env, c.get("db"), c.get("principal").userId, c.req.valid("param").conversation_id);
    return c.body(null, 204);
  })
  .openapi(send, async (c) => {
    const { conversation_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const principal = c.get("principal");
    await getOwnedConversation(c.get("db"), principal.userId, conversation_id);
    // An unknown or unconfigured provider is refused before anything is stored.
    await resolveProvider(providerContext(c), body.provider);
    const reply = await conversationStub(c.env, conversation_id).send({
      conversationId: conversation_id,
      userId: principal.userId,
      credentialId: principal.credentialId,
      content: body.content,
      provider: body.provider ?? null,
    });
    return c.json(reply, 201);
  })
  .openapi(messages, async (c) => {
    const { conversation_id } = c.req.valid("param");
    await getOwnedConversation(c.get("db"), c.get("principal").userId, conversation_id);
    const { after_id, limit } = c.req.valid("query");
    return c.json(await conversationStub(c.env, conversation_id).messages(conversation_id, { afterId: after_id, limit }), 200);
  })
  .openapi(stream, async (c) => {
    const { conversation_id } = c.req.valid("param");
    await getOwnedConversation(c.get("db"), c.get("principal").userId, conversation_id);
    const body = await conversationStub(c.env, conversation_id).stream(conversation_id);
    return new Response(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no" } }) as any;
  })
  .openapi(validateToolCall, async (c) => {
    const { conversation_id } = c.req.valid("param");
    const principal = c.get("principal");
    await getOwnedConversation(c.get("db"), principal.userId, conversation_id);
    const body = c.req.valid("json");
    const ctx = { userId: principal.userId, credentialId: principal.credentialId, db: c.get("db"), env: c.env, config: c.get("config"), source: "validate" };
    try {
      const { call } = await prepareToolCall(ctx, body.name, body.arguments, { charge: false });
      return c.json({ valid: true, errors: [], tool: { name: call.name, connection_id: call.connection?.id ?? null } }, 200);
    } catch (error) {
      if (!(error instanceof HubError) || error.code === "rate_limited") throw error;
      const errors = error.errors?.map((e) => ({ field: e.field, message: e.message })) ?? [
        { field: error.code === "not_found" ? "name" : "", message: error.message },
      ];
      return c.json({ valid: false, errors, tool: error.code === "not_found" ? null : { name: body.name, connection_id: null } }, 200);
    }
  })
  .openapi(explainIntent, async (c) => {
    const body = c.req.valid("json");
    const { provider, catalog } = await explainContext(c, c.req.valid("param").conversation_id, body.provider);
    return c.json({ ...classifyIntent(body.content, catalog), provider: provider.id }, 200);
  })
  .openapi(explainTools, async (c) => {
    const body = c.req.valid("json");
    const { provider, catalog } = await explainContext(c, c.req.valid("param").conversation_id, body.provider);
    const ranked = rankTools(body.content, catalog, 10).map((r) => ({ name: r.tool.name, score: r.score, reason: r.reason }));
    return c.json({ tools: ranked, provider: provider.id }, 200);
  });

/** What both explain endpoints need: the caller's conversation checked, the provider, the catalog. */
async function explainContext(c: Context<AppEnv>, conversationId: number, providerId: string | null | undefined) {
  const userId = c.get("principal").userId;
  await getOwnedConversation(c.get("db"), userId, conversationId);
  const provider = await resolveProvider(providerContext(c), providerId);
  const catalog = await catalogFor(c.env, c.get("config"), c.get("db"), userId);
  return { provider, catalog };
}
