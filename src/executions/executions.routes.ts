import { z } from "@hono/zod-openapi";
import { authedRoute, commonErrors, conflictError, createRouter, notFoundError } from "../http/router";
import { PageQuery, pageOf, paginate } from "../http/pagination";
import { cancelExecution } from "./cancel";
import { childExecutions, getOwnedExecution, listWorkflowExecutions, presentExecution } from "./present";
import { runWorkflow } from "./start-and-run";
import { skippedOrThrow } from "./flow-control";
import { ChildExecutionSchema, ExecutionSchema, NotificationSchema, PreferHeader, WorkflowId } from "../workflows/schemas";
import { JsonObject } from "../http/schemas";
import { preferredWait } from "../http/prefer";
import { REPLAYED_HEADER, readIdempotencyKey } from "../http/idempotency";
import { MAX_WAIT_SECONDS } from "./run-now";
import { deliverEvent } from "./events";
import { presentNotifications } from "./notifications";
import { EventName } from "../workflows/steps";

/** An event's payload becomes a step result, so it is held to a step result's size. */
const MAX_EVENT_PAYLOAD_CHARS = 256 * 1024;

const ExecutionIdParam = z.object({
  execution_id: z
    .string()
    .max(64)
    .openapi({ param: { name: "execution_id", in: "path" } }),
});

const execute = authedRoute("workflow:execute", {
  method: "post",
  path: "/workflows/{workflow_id}/execute",
  tags: ["Workflows"],
  summary: "Execute a workflow",
  description:
    "Starts a run and answers 202 with its `execution_id`; follow it at GET /v1/executions/{execution_id}. `input_data` overlays the workflow's variables and is available as `{{input.…}}`. With `Prefer: wait=<seconds>` (at most 60) the answer waits for the run: 200 with the finished execution if it ends in time, else 202 as without it (`Preference-Applied` says the wait was honoured). With an `Idempotency-Key` header (1–255 visible ASCII characters), the same key from the same user within 24 h starts nothing and answers with the run it started (`Idempotent-Replayed: true`); the same key with a different workflow or input is 422.",
  request: {
    params: WorkflowId,
    headers: PreferHeader,
    body: { required: false, content: { "application/json": { schema: z.object({ input_data: JsonObject.default({}) }) } } },
  },
  responses: {
    200: { description: "Finished within the wait asked for", content: { "application/json": { schema: ExecutionSchema } } },
    202: {
      description: "Queued (a debounced start: the run its window collapses into), or skipped by the workflow's rate_limit",
      content: {
        "application/json": {
          schema: z.union([
            z.object({ execution_id: z.string(), status: z.literal("queued"), workflow_version: z.number().int() }),
            z.object({ status: z.literal("skipped"), reason: z.literal("rate_limited") }),
          ]),
        },
      },
    },
    ...notFoundError,
    409: { description: "The workflow is paused or archived." },
  },
});

const executionsOf = authedRoute("data:read", {
  method: "get",
  path: "/workflows/{workflow_id}/executions",
  tags: ["Workflows"],
  summary: "List a workflow's executions",
  request: { params: WorkflowId, query: PageQuery },
  responses: { 200: { description: "Executions, newest first", content: { "application/json": { schema: pageOf(ExecutionSchema) } } }, ...notFoundError },
});

const execution = authedRoute("data:read", {
  method: "get",
  path: "/executions/{execution_id}",
  tags: ["Workflows"],
  summary: "Get an execution with its step records",
  request: { params: ExecutionIdParam },
  responses: {
    200: {
      description: "The execution",
      content: {
        "application/json": { schema: ExecutionSchema.extend({ notifications: z.array(NotificationSchema), child_executions: z.array(ChildExecutionSchema) }) },
      },
    },
    ...notFoundError,
  },
});

const cancel = authedRoute("workflow:execute", {
  method: "post",
  path: "/executions/{execution_id}/cancel",
  tags: ["Workflows"],
  summary: "Cancel an execution",
  description:
    "Stops an unfinished execution (queued, running, or waiting on a delay or a retry): a step in progress is aborted and no further step runs. Answers the execution, now `cancelled`; a finished one answers 409.",
  request: { params: ExecutionIdParam },
  responses: { 200: { description: "Cancelled", content: { "application/json": { schema: ExecutionSchema } } }, ...notFoundError, ...conflictError },
});

const events = authedRoute("workflow:execute", {
  method: "post",
  path: "/executions/{execution_id}/events",
  tags: ["Workflows"],
  summary: "Deliver an event to a waiting execution",
  description:
    "Resumes an execution parked at a `wait_for_event` step (a human approval, say): the step succeeds with `payload` as its result (`{{steps.<id>.result…}}`) and the run carries on. `event` must be the one the step waits for and arrive before its timeout; an execution not waiting for it answers 409. The step's `approvers` say who may deliver it: any credential of the run's owner (`any`, the default), an owner's credential other than the one that started the run (`other`), or only the listed users, who may deliver it to a run that is not theirs (and only that). A caller the step does not admit gets 403 and the run keeps waiting.",
  request: {
    params: ExecutionIdParam,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            event: EventName,
            payload: z
              .unknown()
              .optional()
              .refine(
                (value) => JSON.stringify(value ?? null).length <= MAX_EVENT_PAYLOAD_CHARS,
                `The payload is larger than ${MAX_EVENT_PAYLOAD_CHARS / 1024} KiB.`,
              ),
          }),
        },
      },
    },
  },
  responses: {
    202: {
      description: "Delivered; the run resumes",
      content: { "application/json": { schema: z.object({ execution_id: z.string(), status: z.literal("queued") }) } },
    },
    403: {
      ...commonErrors[403],
      description: "The credential lacks the scope, or the waiting step needs its approval from another credential or person (`approvers`).",
    },
    ...notFoundError,
    ...conflictError,
  },
});

export const executionRoutes = createRouter()
  .openapi(execute, async (c) => {
    // The body is optional: without one the run gets empty input_data.
    const input = (c.req.valid("json") as { input_data?: Record<string, unknown> } | undefined)?.input_data ?? {};
    const waitSeconds = preferredWait(c.req.header("Prefer"), MAX_WAIT_SECONDS);
    const workflowId = c.req.valid("param").workflow_id;
    const idempotency = await readIdempotencyKey(c.req.header("Idempotency-Key"), { workflow_id: workflowId, input });
    const started = await runWorkflow(c.var.ctx, workflowId, input, { waitSeconds, idempotency }).catch(skippedOrThrow);
    if (!started) return c.json({ status: "skipped" as const, reason: "rate_limited" as const }, 202);
    const { execution, finished, replayed } = started;
    if (waitSeconds !== undefined) c.header("Preference-Applied", `wait=${waitSeconds}`);
    if (replayed) c.header(REPLAYED_HEADER, "true");
    if (finished) return c.json(await presentExecution(c.var.ctx.db, finished.execution, true, finished.steps), 200);
    return c.json({ execution_id: execution.id, status: "queued" as const, workflow_version: execution.workflowVersion }, 202);
  })
  .openapi(executionsOf, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const rows = await listWorkflowExecutions(c.var.ctx, c.req.valid("param").workflow_id, limit + 1, cursor);
    const { page, nextCursor } = paginate(rows, limit, (row) => ({ c: row.createdAt.getTime(), id: row.id }));
    return c.json({ data: await Promise.all(page.map((row) => presentExecution(c.var.ctx.db, row, false))), next_cursor: nextCursor }, 200);
  })
  .openapi(cancel, async (c) => {
    const row = await cancelExecution(c.var.ctx, c.req.valid("param").execution_id);
    return c.json(await presentExecution(c.var.ctx.db, row, true), 200);
  })
  .openapi(execution, async (c) => {
    const row = await getOwnedExecution(c.var.ctx, c.req.valid("param").execution_id);
    const [execution, notifications, children] = await Promise.all([
      presentExecution(c.var.ctx.db, row, true),
      presentNotifications(c.var.ctx.db, row.id),
      childExecutions(c.var.ctx.db, row.id),
    ]);
    return c.json({ ...execution, notifications, child_executions: children }, 200);
  })
  .openapi(events, async (c) => {
    const { event, payload } = c.req.valid("json");
    const executionId = c.req.valid("param").execution_id;
    await deliverEvent(c.var.ctx, executionId, event, payload);
    return c.json({ execution_id: executionId, status: "queued" as const }, 202);
  });
