import { z } from "@hono/zod-openapi";
import { JsonObject } from "../http/schemas";
import { IntIdParam, Timestamp } from "../http/schemas";
import { TRIGGER_DESCRIPTION, TRIGGER_TYPES } from "./triggers";
import { ModelUsageSchema } from "../usage/schemas";

/** The shapes workflow and execution routes answer with and accept. */
export const Status = z.enum(["draft", "active", "paused", "archived"]);

export const WorkflowSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    status: Status,
    version: z.number().int(),
    is_template: z.boolean().openapi({ description: "Whether the workflow is published as a template now (POST /v1/workflows/{id}/publish)." }),
    trigger_type: z.string().openapi({ description: TRIGGER_DESCRIPTION, example: "schedule" }),
    trigger_config: JsonObject.openapi({ description: "The trigger's settings, by `trigger_type` (see there)." }),
    variables: JsonObject,
    workflow_metadata: JsonObject,
    settings: JsonObject,
    notify_secret: z.string().optional().openapi({ description: "Signs `settings.notify` deliveries; in the answer only when it is made (notify first set)." }),
    steps: z.array(JsonObject),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("Workflow");

export const StepRecordSchema = z.object({
  step_id: z.string(),
  /** For a step inside a for_each, the item (0-based) this record is for. */
  item: z.number().int().nullable(),
  type: z.string(),
  status: z.enum(["running", "waiting", "retrying", "succeeded", "failed", "skipped"]),
  attempts: z.number().int(),
  /** From its first start to its end, retries and waits included. */
  duration_ms: z.number().int().nullable(),
  /** Model tokens (llm steps; a workflow step counts its child run's). */
  tokens_used: z.number().int(),
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  resume_at: Timestamp.nullable(),
  result: z.unknown(),
  error_message: z.string().nullable(),
  /** A code step's console lines: the first 100, then one line saying how many more were not kept. */
  logs: z.array(z.string()).optional(),
  /** An llm step's: what its model requests spent over its attempts (null when none answered). */
  usage: z.union([ModelUsageSchema, z.null()]).optional(),
  /** A failure the API names with a code: `budget_exceeded` (a budget was spent before the model request). */
  error_code: z.string().optional(),
});

/** A `settings.notify` delivery of a finished execution, with every attempt. */
export const NotificationSchema = z
  .object({
    id: z.string(),
    event: z.string().openapi({ example: "execution.succeeded" }),
    url: z.string(),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    next_attempt_at: Timestamp.nullable(),
    delivered_at: Timestamp.nullable(),
    attempt_log: z.array(z.object({ at: Timestamp, status_code: z.number().int().nullable(), error: z.string().nullable() })),
  })
  .openapi("ExecutionNotification");

/** A run started by this one: a `workflow` step's child, or its `settings.on_failure` error run. */
export const ChildExecutionSchema = z
  .object({
    id: z.string(),
    workflow_id: z.number().int(),
    status: z.string(),
    tokens_used: z.number().int(),
    created_at: Timestamp,
    finished_at: Timestamp.nullable(),
  })
  .openapi("ChildExecution");

export const ExecutionSchema = z
  .object({
    id: z.string(),
    workflow_id: z.number().int(),
    workflow_version: z.number().int(),
    status: z.enum(["queued", "running", "waiting", "succeeded", "failed", "cancelled"]),
    input_data: JsonObject,
    error_message: z.string().nullable(),
    failed_step_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    /** The failed run this one retries (reusing its succeeded steps). */
    retry_of: z.string().nullable(),
    /** The run whose input this one ran again, from the start. */
    replay_of: z.string().nullable(),
    /** Set on the child run of a `workflow` step. */
    parent_execution_id: z.string().nullable(),
    trigger: z.enum(["manual", "schedule", "webhook", "poll", "child", "on_failure", "retry", "replay"]).openapi({
      description:
        "What started the run: the API or the dashboard (`manual`, an agent run by hand too), an agent's `schedule`, `webhook` or `poll`, a `workflow` step (`child`), an error workflow (`on_failure`), `retry` or `replay`.",
    }),
    /** Model tokens spent by the run's steps. */
    tokens_used: z.number().int(),
    created_at: Timestamp,
    started_at: Timestamp.nullable(),
    finished_at: Timestamp.nullable(),
    verdict: z.enum(["goal_met", "goal_not_met"]).nullable().openapi({
      description:
        "A run of an agent with `agent_config.goal`, once it ended: whether it met the goal. Null for runs of no agent or of an agent without a goal, and while the goal's judge has not answered.",
    }),
    verdict_reason: z.string().nullable().openapi({ description: "Why the run met its goal or not (the criterion that failed, the judge's reason)." }),
    mode: z.enum(["production", "test"]).openapi({
      description:
        "`test` for a test run (POST /v1/workflows/{workflow_id}/test) and the runs it started: it counts in no agent's monitoring, notifies nothing and is never replayed. `production` for every other run.",
    }),
    errors_handled: z.number().int().openapi({
      description:
        "Step failures the steps' `on_error` took over (continue, or handler steps that ran) and the run went on past, one per for_each item; a retry counts those of the run it retries too.",
    }),
    waiting_for: z
      .object({ approval_id: z.string() })
      .optional()
      .openapi({ description: "A `waiting` run whose `agent` step waits for a person's decision: the approval (GET /v1/approvals/{id})." }),
    steps: z.array(StepRecordSchema).optional(),
  })
  .openapi("Execution");

export const WorkflowId = IntIdParam("workflow_id");
export const Name = z.string().trim().min(1).max(200);
export const Description = z.string().max(5000);
export const TriggerType = z.enum(TRIGGER_TYPES).openapi({ description: TRIGGER_DESCRIPTION });
/** Checked against `trigger_type` by the service (422 naming `trigger_config.<field>`). */
export const TriggerConfig = JsonObject.openapi({ description: "The trigger's settings, by `trigger_type` (see there); `{}` for manual." });

/** RFC 7240 preferences; `wait=<seconds>` (at most 60) makes an execute wait for the run's end. */
export const PreferHeader = z.object({
  Prefer: z
    .string()
    .max(200)
    .optional()
    .openapi({ param: { name: "Prefer", in: "header" }, example: "wait=10" }),
});
