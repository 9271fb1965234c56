import { z } from "@hono/zod-openapi";
import { preferredWait } from "../http/prefer";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { JsonObject } from "../http/schemas";
import { ExecutionSchema, PreferHeader, WorkflowId } from "../workflows/schemas";
import { presentExecution } from "./present";
import { MAX_WAIT_SECONDS } from "./run-now";
import { MAX_PINNED_BYTES, MAX_PINNED_STEPS, startTestRun } from "./test-run";

const testRun = authedRoute("workflow:execute", {
  method: "post",
  path: "/workflows/{workflow_id}/test",
  tags: ["Workflows"],
  summary: "Test a workflow",
  description: `Starts a test run of the workflow as it is now and answers as POST /v1/workflows/{workflow_id}/execute does (202 with its \`execution_id\`, or with \`Prefer: wait=<seconds>\` 200 with the finished execution), with \`mode: "test"\`. Each step of \`pinned\` (by step id, anywhere in the workflow; at most ${MAX_PINNED_STEPS}, ${MAX_PINNED_BYTES / 1024} KiB of JSON together) does not run: it gives that result, recorded as a succeeded step with no attempt, and the steps after it read it as \`{{steps.<id>.result}}\` as if it had run (a \`set\` step's result is its object of values, a \`condition\`'s \`{"branch": "then" | "else"}\`). A step id the workflow does not have is 422 naming \`pinned.<id>\`. With \`agent_id\` (one of your agents that deploys this workflow) it runs as that agent's run would. A test run is listed with the workflow's runs, but counts in no agent's monitoring, sends no \`settings.notify\` notification, starts no \`settings.on_failure\` run and is never replayed; the runs its \`workflow\` steps start are test runs too.`,
  request: {
    params: WorkflowId,
    headers: PreferHeader,
    body: {
      required: false,
      content: {
        "application/json": {
          schema: z.object({
            input_data: JsonObject.default({}),
            pinned: JsonObject.default({}).openapi({
              description: "Step results by step id: those steps do not run and give these.",
              example: { fetch_orders: { orders: [{ id: 1, total: 42 }] } },
            }),
            agent_id: z.string().max(64).optional().openapi({
              description:
                "One of your agents that deploys this workflow: the run is that agent's (its settings, goal and budgets), counted in none of its numbers.",
            }),
          }),
        },
      },
    },
  },
  responses: {
    200: { description: "Finished within the wait asked for", content: { "application/json": { schema: ExecutionSchema } } },
    202: {
      description: "Queued",
      content: {
        "application/json": {
          schema: z.object({ execution_id: z.string(), status: z.literal("queued"), workflow_version: z.number().int(), mode: z.literal("test") }),
        },
      },
    },
    ...notFoundError,
    409: { description: "The workflow is paused or archived." },
  },
});

export const testRunRoutes = createRouter().openapi(testRun, async (c) => {
  // The body is optional: without one the run gets empty input_data and pins nothing.
  const body = c.req.valid("json") as { input_data?: Record<string, unknown>; pinned?: Record<string, unknown>; agent_id?: string } | undefined;
  const waitSeconds = preferredWait(c.req.header("Prefer"), MAX_WAIT_SECONDS);
  const workflowId = c.req.valid("param").workflow_id;
  const { execution, finished } = await startTestRun(c.var.ctx, workflowId, body?.input_data ?? {}, body?.pinned ?? {}, {
    waitSeconds,
    agentId: body?.agent_id,
  });
  if (waitSeconds !== undefined) c.header("Preference-Applied", `wait=${waitSeconds}`);
  if (finished) return c.json(await presentExecution(c.var.ctx.db, finished.execution, true, finished.steps), 200);
  return c.json({ execution_id: execution.id, status: "queued" as const, workflow_version: execution.workflowVersion, mode: "test" as const }, 202);
});
