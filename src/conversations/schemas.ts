import { z } from "@hono/zod-openapi";
import { IntIdParam, Timestamp } from "../http/schemas";
import { ModelUsageSchema } from "../usage/schemas";

export const MAX_MESSAGE_CHARS = 32_000;

export const ToolCallSchema = z
  .object({
    id: z.string().openapi({ description: "The tool_call_id of the matching tool message." }),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    round: z.number().int(),
    success: z.boolean(),
    error_message: z.string().nullable(),
    duration_ms: z.number().int(),
    call_id: z.string().nullable().openapi({ description: "The audit log's call_id." }),
    approval_id: z.string().optional().openapi({ description: "The approval the call waited on (a policy rule's `ask`)." }),
  })
  .openapi("ToolCall");

export const MessageSchema = z
  .object({
    id: z.number().int(),
    conversation_id: z.number().int(),
    role: z.enum(["user", "assistant", "tool", "system"]),
    content: z.string(),
    status: z.enum(["received", "completed", "error", "stopped", "summary", "awaiting_approval", "budget_exceeded"]).openapi({
      description:
        "received (a user message), completed, error, stopped (an answer cut short by POST …/stop: the text produced so far), summary (a system message that replaces older history for the model; every message is still listed), awaiting_approval (an answer whose calls wait for a person: `pending_approvals`; completed once every one is decided, and the turn goes on by itself), budget_exceeded (the turn ended before a model request because a budget was spent; `error_message` names it).",
    }),
    tokens_used: z.number().int(),
    tools_called: z.array(ToolCallSchema),
    tool_call_id: z.string().nullable(),
    error_message: z.string().nullable(),
    provider: z.string().nullable(),
    model: z.string().nullable(),
    // An answer's: what its turn's model requests spent (null when none answered); null on other messages.
    usage: z.union([ModelUsageSchema, z.null()]),
    pending_approvals: z
      .array(z.string())
      .optional()
      .openapi({ description: "On an `awaiting_approval` answer: the approvals it waits on (GET /v1/approvals/{id})." }),
    created_at: Timestamp,
  })
  .openapi("Message");

export const ConversationSchema = z
  .object({
    id: z.number().int(),
    title: z.string().nullable(),
    agent_id: z
      .string()
      .nullable()
      .openapi({ format: "uuid", description: "The agent this conversation talks to (a chat agent's): its turns use the agent's agent_config." }),
    state: z.enum(["idle", "processing", "awaiting_approval"]),
    message_count: z.number().int(),
    last_message_preview: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("Conversation");

export const Content = z.string().trim().min(1).max(MAX_MESSAGE_CHARS);
export const Provider = z.string().max(50).nullish().openapi({ description: "Overrides the user's default provider for this call." });
export const IdParam = IntIdParam("conversation_id");

export const ToolCallBody = z.object({ name: z.string().min(1).max(200), arguments: z.record(z.string(), z.unknown()).default({}) });

export const ExplainBody = z.object({ content: Content, provider: Provider });
