import { z } from "@hono/zod-openapi";
import { authedRoute, conflictError, createRouter, notFoundError } from "../http/router";
import { retryExecution } from "./retry";
import { MAX_REPLAY, replayExecutions } from "./replay";
import { WorkflowId } from "../workflows/schemas";

const Started = z.object({ execution_id: z.string(), status: z.literal("queued") });

const retry = authedRoute("workflow:execute", {
  method: "post",
  path: "/executions/{execution_id}/retry",
  tags: ["Workflows"],
  summary: "Retry a failed execution from the step that failed",
  description:
    "Starts a new execution (`retry_of` = this one) of the same workflow version with the same input. It reuses this run's succeeded steps (their results, never their side effects again) and the failures its steps' `on_error` handled (counted in the retry's `errors_handled`), and starts at the step that failed. Only a failed or cancelled execution can be retried (else 409). The retry acts with the caller's credential.",
  request: {
    params: z.object({
      execution_id: z
        .string()
        .max(64)
        .openapi({ param: { name: "execution_id", in: "path" } }),
    }),
  },
  responses: {
    202: { description: "The retry started", content: { "application/json": { schema: Started.extend({ retry_of: z.string() }) } } },
    ...notFoundError,
    ...conflictError,
  },
});

const replay = authedRoute("workflow:execute", {
  method: "post",
  path: "/workflows/{workflow_id}/executions/replay",
  tags: ["Workflows"],
  summary: "Replay a workflow's past executions",
  description: `Runs again, from the start and on the workflow as it is now, the input of each of this workflow's executions with \`status\` (created at or after \`since\`, newest first, at most \`limit\`, up to ${MAX_REPLAY}): typically the failures after a fix. Each new execution has \`replay_of\`; an execution replayed before is skipped, so asking twice replays nothing twice. Starts count against the quota of unfinished executions: when it is reached part-way, the answer lists those started and \`quota_reached\` is true.`,
  request: {
    params: WorkflowId,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            status: z.enum(["failed", "cancelled", "succeeded"]),
            since: z.iso.datetime({ offset: true }).optional(),
            limit: z.number().int().min(1).max(MAX_REPLAY).default(10),
          }),
        },
      },
    },
  },
  responses: {
    202: {
      description: "The replays started",
      content: {
        "application/json": {
          schema: z.object({ data: z.array(Started.extend({ replay_of: z.string() })), count: z.number().int(), quota_reached: z.boolean() }),
        },
      },
    },
    ...notFoundError,
    ...conflictError,
  },
});

export const rerunRoutes = createRouter()
  .openapi(retry, async (c) => {
    const started = await retryExecution(c.var.ctx, c.req.valid("param").execution_id);
    return c.json({ execution_id: started.id, status: "queued" as const, retry_of: started.retryOf! }, 202);
  })
  .openapi(replay, async (c) => {
    const { status, since, limit } = c.req.valid("json");
    const { started, quotaReached } = await replayExecutions(c.var.ctx, c.req.valid("param").workflow_id, {
      status,
      since: since ? new Date(since) : undefined,
      limit,
    });
    const data = started.map((run) => ({ execution_id: run.id, status: "queued" as const, replay_of: run.replayOf! }));
    return c.json({ data, count: data.length, quota_reached: quotaReached }, 202);
  });
