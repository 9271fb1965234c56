import { z } from "@hono/zod-openapi";
import { PageQuery, pageOf } from "../http/pagination";
import { authedRoute, conflictError, createRouter, notFoundError } from "../http/router";
import { JsonObject, Timestamp } from "../http/schemas";
import { decideApproval, getApproval, listApprovals } from "./service";

export const ApprovalSchema = z
  .object({
    id: z.string().openapi({ example: "apr_5G3kq1v0XbLw2m9T" }),
    status: z.enum(["pending", "approved", "denied", "expired"]),
    tool: z.string(),
    arguments: JsonObject.openapi({ description: "The call's arguments; once approved, the ones it runs with (edited by the decider, if so)." }),
    effect: z.string().openapi({ description: "read, write or destructive." }),
    rule: JsonObject.openapi({ description: "The policy rule that asked, with `source` (agent, account or default) and its `index` there." }),
    tool_call_id: z
      .string()
      .optional()
      .openapi({ description: "The model's id for the call, as in the conversation's `tool_started` event and `tools_called`." }),
    conversation_id: z.number().int().optional(),
    message_id: z.number().int().optional().openapi({ description: "The assistant message that waits on it." }),
    execution_id: z.string().optional(),
    step_id: z.string().optional(),
    agent_id: z.string().optional(),
    requested_at: Timestamp,
    expires_at: Timestamp,
    decided_at: Timestamp.nullable(),
    decided_by: z
      .string()
      .nullable()
      .openapi({ description: "Who decided: `user:<id>`, `slack:<user id>`, `email:<address>`; null while pending or when it expired." }),
    note: z.string().nullable(),
  })
  .openapi("Approval");

const ApprovalId = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: "apr_5G3kq1v0XbLw2m9T" }),
});

const list = authedRoute("data:read", {
  method: "get",
  path: "/approvals",
  tags: ["Approvals"],
  summary: "Your approvals",
  description: "Tool calls a policy rule sent to a person (`ask`), newest first. A pending approval past its `expires_at` is `expired`.",
  request: {
    query: PageQuery.extend({
      status: z
        .enum(["pending", "approved", "denied", "expired"])
        .optional()
        .openapi({ param: { name: "status", in: "query" } }),
    }),
  },
  responses: { 200: { description: "A page of approvals", content: { "application/json": { schema: pageOf(ApprovalSchema) } } } },
});

const read = authedRoute("data:read", {
  method: "get",
  path: "/approvals/{id}",
  tags: ["Approvals"],
  summary: "One approval",
  request: { params: ApprovalId },
  responses: { 200: { description: "The approval", content: { "application/json": { schema: ApprovalSchema } } }, ...notFoundError },
});

const DecisionSchema = z
  .object({
    decision: z.enum(["approve", "deny"]),
    arguments: JsonObject.optional().openapi({
      description: "With approve: the arguments to run the call with instead, checked against the tool's input schema (422).",
    }),
    note: z.string().max(2000).optional().openapi({ description: "Told to the model with a denial." }),
  })
  .strict()
  .openapi("ApprovalDecision");

const decide = authedRoute("workflow:execute", {
  method: "post",
  path: "/approvals/{id}/decision",
  tags: ["Approvals"],
  summary: "Approve or deny a call",
  description:
    "Decides a pending approval. The turn or run waiting on it goes on by itself once every approval it waits on is decided: an approved call runs with the final arguments, a denied one is told to the model. An approval decided already, or expired, answers 409.",
  request: { params: ApprovalId, body: { required: true, content: { "application/json": { schema: DecisionSchema } } } },
  responses: { 200: { description: "The decided approval", content: { "application/json": { schema: ApprovalSchema } } }, ...notFoundError, ...conflictError },
});

export const approvalRoutes = createRouter()
  .openapi(list, async (c) => c.json(await listApprovals(c.var.ctx, c.req.valid("query")), 200))
  .openapi(read, async (c) => c.json(await getApproval(c.var.ctx, c.req.valid("param").id), 200))
  .openapi(decide, async (c) => {
    const ctx = c.var.ctx;
    return c.json(await decideApproval(ctx, c.req.valid("param").id, c.req.valid("json"), `user:${ctx.actor.id}`), 200);
  });
