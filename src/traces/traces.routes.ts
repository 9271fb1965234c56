import { z } from "@hono/zod-openapi";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { IntIdParam, Timestamp } from "../http/schemas";
import { executionTrace } from "./execution-trace";
import { presentTrace } from "./spans";
import { messageTrace } from "./store";

const SpanSchema = z
  .object({
    span_id: z.string().openapi({ description: "16 hex digits.", example: "5fb397be34d26b51" }),
    parent_span_id: z.string().nullable().openapi({
      description: "The id of the span it belongs to (a step under the run, a model request or tool call under its agent step); null on the root.",
    }),
    name: z.string().openapi({ example: "execute_tool math_evaluate" }),
    kind: z.enum(["internal", "client"]),
    start_time: Timestamp,
    end_time: Timestamp,
    duration_ms: z.number().int(),
    status: z.enum(["unset", "ok", "error"]),
    attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).openapi({
      description:
        "OpenTelemetry GenAI attributes (`gen_ai.operation.name`: invoke_agent, invoke_workflow, chat or execute_tool; `gen_ai.request.model`, `gen_ai.response.model`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `error.type`…) and the hub's own (`hub.*`). Never tool arguments, results or message text.",
      example: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "math_evaluate", "gen_ai.tool.call.id": "call_1" },
    }),
  })
  .openapi("Span");

const TraceSchema = z
  .object({
    trace_id: z
      .string()
      .openapi({ description: "32 hex digits; the same id the spans carry when exported over OTLP.", example: "4bf92f3577b34da6a3ce929d0e0e4736" }),
    spans: z.array(SpanSchema).openapi({ description: "The root span first, then its children in the order they started; at most 500." }),
  })
  .openapi("Trace");

const ExecutionIdParam = z.object({
  execution_id: z
    .string()
    .max(64)
    .openapi({ param: { name: "execution_id", in: "path" } }),
});
const MessageParams = IntIdParam("conversation_id").extend(IntIdParam("message_id").shape);

const ofExecution = authedRoute("data:read", {
  method: "get",
  path: "/executions/{execution_id}/trace",
  tags: ["Workflows"],
  summary: "An execution's trace",
  description:
    "The run as OpenTelemetry spans, built from its step records: a root `invoke_workflow <workflow>` span and a child per step record in the order they ran (`execute_tool <tool>` for tool steps, `chat <model>` for llm steps with the tokens they used, `<type> <step id>` for the others). Works for every run, finished or not.",
  request: { params: ExecutionIdParam },
  responses: { 200: { description: "The trace", content: { "application/json": { schema: TraceSchema } } }, ...notFoundError },
});

const ofMessage = authedRoute("data:read", {
  method: "get",
  path: "/conversations/{conversation_id}/messages/{message_id}/trace",
  tags: ["Conversations"],
  summary: "The trace of the turn that ended with this assistant message",
  description:
    "The turn as OpenTelemetry spans: a root `invoke_agent` span, a `chat <model>` span per model request (model and token counts as the provider reported them) and an `execute_tool <tool>` span per tool call (`gen_ai.tool.call.id` is the model's call id). A turn that waited for approval has two traces: the part before the wait (on the waiting answer) and the part after (on the final answer). A message with no trace (a user's message) is 404.",
  request: { params: MessageParams },
  responses: { 200: { description: "The trace", content: { "application/json": { schema: TraceSchema } } }, ...notFoundError },
});

export const traceRoutes = createRouter()
  .openapi(ofExecution, async (c) => c.json(presentTrace(await executionTrace(c.var.ctx, c.req.valid("param").execution_id)), 200))
  .openapi(ofMessage, async (c) => {
    const { conversation_id, message_id } = c.req.valid("param");
    return c.json(presentTrace(await messageTrace(c.var.ctx, conversation_id, message_id)), 200);
  });
