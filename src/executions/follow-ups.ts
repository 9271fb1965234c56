import { type SQL, and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ServiceContext } from "../core/context";
import { executions, workflows, type Execution } from "../db/schema";
import { randomToken } from "../lib/crypto";
import { loggableError } from "../lib/safe-log";
import { descendantCounted, descendantsExceeded, descendantsOf, treeHasRoom } from "./descendants";
import { countUnfinishedRuns, hasRoomForRun, insertFromWorkflow } from "./start";
import { enqueueNotification, notificationInsert } from "./notifications";
import { enqueueExecution } from "./queue";
import { MAX_WORKFLOW_DEPTH, NOTIFY_EVENTS, type WorkflowSettings } from "../workflows/steps";
import { exportRunTrace } from "../traces/execution-trace";
import { alertEventWrites } from "../core/alert-events";

export type FinalState = { status: "succeeded" } | { status: "failed"; errorMessage: string; failedStepId: string | null };

/**
 * What a run's end sets off, per its workflow's settings: the notification of `settings.notify`
 * and, when it failed, a run of the `settings.on_failure` workflow with `{execution, error}`.
 * Their rows are written in the batch that ends the run (guarded by the run's lease, like its
 * other writes), so an end is never recorded without them; `send` then queues them, and the
 * sweep finds any whose message was lost. An error run counts as a descendant of the failed run's
 * tree (MAX_RUN_DESCENDANTS) and as an unfinished run of its owner (MAX_RUNNING_EXECUTIONS_PER_USER);
 * one that did not start (no room left, its workflow deleted or paused since) is said on the
 * failed run's `error_message`.
 */
export function followUpsOfEnd(ctx: ServiceContext, execution: Execution, final: FinalState, stillHeld: SQL) {
  const settings = execution.settings as WorkflowSettings;
  const writes: BatchItem<"sqlite">[] = [];
  const event = final.status === "succeeded" ? NOTIFY_EVENTS[0] : NOTIFY_EVENTS[1];
  // A test run (DESIGN §6.5) sets off neither: what it did is for the person testing to read.
  const test = execution.mode === "test";
  const notification =
    !test && settings.notify && (settings.notify.events ?? NOTIFY_EVENTS).includes(event)
      ? notificationInsert(ctx.db, execution.id, event, settings.notify.url, stillHeld)
      : undefined;
  if (notification) writes.push(notification.insert);
  // The owner's alerts (DESIGN §6.5) hear of a failure in the batch that ends the run, or not at
  // all. A child run's failure is its parent's to handle: the parent's own failure is the alert.
  if (final.status === "failed" && !test && !execution.parentExecutionId) {
    const agent = execution.agentId ? ` (agent ${execution.agentId})` : "";
    const summary = `Workflow ${execution.workflowId}${agent}: ${final.errorMessage}`;
    writes.push(...alertEventWrites(ctx.db, { userId: execution.userId, kind: "run_failed", subject: execution.id, summary }, stillHeld));
  }

  // An error workflow's own failures set off theirs too, but no deeper than workflow steps nest.
  const errorWorkflowId = final.status === "failed" && !test ? settings.on_failure?.workflow_id : undefined;
  const tooDeep = execution.depth >= MAX_WORKFLOW_DEPTH;
  const errorRunId = errorWorkflowId !== undefined && !tooDeep ? `exe_${randomToken(16)}` : undefined;
  let errorRunAt: number | undefined;
  if (errorRunId && final.status === "failed" && settings.on_failure) {
    const root = execution.rootExecutionId ?? execution.id;
    const input = {
      execution: {
        id: execution.id,
        workflow_id: execution.workflowId,
        input_data: execution.input,
        failed_step_id: final.failedStepId,
        error_message: final.errorMessage,
      },
      error: final.errorMessage,
    };
    errorRunAt = writes.length;
    writes.push(
      insertFromWorkflow(
        ctx,
        settings.on_failure.workflow_id,
        {
          id: errorRunId,
          userId: execution.userId,
          credentialId: execution.credentialId,
          input,
          parentExecutionId: execution.id,
          depth: execution.depth + 1,
          rootExecutionId: root,
          trigger: "on_failure",
        },
        // Within the unfinished-runs quota like any start.
        and(stillHeld, treeHasRoom(root, ctx.config.quotas.runDescendants), hasRoomForRun(ctx, execution.userId)),
      ).returning({ id: executions.id }),
      descendantCounted(ctx.db, root, errorRunId),
    );
  }

  /**
   * Queues what the batch wrote (`written`: the results of `writes`, in order); a lost message is
   * the sweep's to find, so failures are only logged. Answers what was added to the run's
   * `error_message` when its error run did not start.
   */
  async function send(written: D1Result[]): Promise<string | undefined> {
    const errorRunStarted = errorRunAt !== undefined && (written[errorRunAt]?.results.length ?? 0) > 0;
    // The run's trace goes to the collector, if one is set, beside the answer (DESIGN §6.3 Traces).
    if (ctx.config.otel.endpoint) ctx.waitUntil(exportRunTrace(ctx, execution.id));
    const queue = ctx.bindings.WORKFLOW_RUNS;
    await Promise.all([
      notification ? enqueueNotification(queue, notification.id) : undefined,
      errorRunStarted && errorRunId ? enqueueExecution(queue, errorRunId) : undefined,
    ]).catch((error) =>
      console.error(
        JSON.stringify({ level: "error", message: "follow-up of a run's end not queued", execution_id: execution.id, error: loggableError(error) }),
      ),
    );
    if (errorWorkflowId === undefined || errorRunStarted) return undefined;
    return noteErrorRunNotStarted(ctx, execution, errorWorkflowId, tooDeep);
  }
  return { writes, send };
}

/**
 * Says on a failed run why its error workflow did not run (else nothing would: the insert only
 * found nothing to copy). Written after the end; a crash before it loses only the note.
 */
async function noteErrorRunNotStarted(ctx: ServiceContext, execution: Execution, workflowId: number, tooDeep: boolean): Promise<string> {
  const reason = await (async () => {
    if (tooDeep) return `runs nest ${MAX_WORKFLOW_DEPTH} deep at most.`;
    const root = execution.rootExecutionId ?? execution.id;
    if ((await descendantsOf(ctx.db, root)) >= ctx.config.quotas.runDescendants) return descendantsExceeded(ctx, root).message;
    const limit = ctx.config.quotas.runningExecutionsPerUser;
    // The failed run itself was still unfinished when its error run would have started.
    if ((await countUnfinishedRuns(ctx, execution.userId)) + 1 >= limit)
      return `the account had ${limit} unfinished executions, as many as it may (MAX_RUNNING_EXECUTIONS_PER_USER).`;
    const target = await ctx.db
      .select({ status: workflows.status })
      .from(workflows)
      .where(and(eq(workflows.id, workflowId), eq(workflows.userId, execution.userId)))
      .get();
    if (!target) return "no workflow of yours has this id.";
    return target.status === "paused" || target.status === "archived" ? `it is ${target.status}.` : "it could not start.";
  })();
  const note = ` The on_failure workflow ${workflowId} did not run: ${reason}`;
  await ctx.db
    .update(executions)
    .set({ errorMessage: sql`coalesce(${executions.errorMessage}, '') || ${note}` })
    .where(and(eq(executions.id, execution.id), eq(executions.status, "failed")));
  console.warn(JSON.stringify({ level: "warn", message: "on_failure run not started", execution_id: execution.id, workflow_id: workflowId, reason }));
  return note;
}
