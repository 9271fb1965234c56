import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { agentEvents, type Execution } from "../db/schema";
import { randomToken } from "../lib/crypto";
import { ownWorkflowCopy } from "../workflows/cached";
import type { RateLimitSettings } from "../workflows/flow-control-settings";
import type { WorkflowSettings } from "../workflows/steps";
import { debounceStart } from "./debounce";
import { keyHashOf } from "./flow-keys";
import { enqueueExecution } from "./queue";
import { type RunRequest, type StartAlongside, type WorkflowRef, insertExecution } from "./start";
import { claimRateSlot } from "./start-rate";
import { type IdempotencyKey, firstRunOf } from "./start-keys";

/**
 * Flow control of a workflow's starts (DESIGN §6.5): `settings.debounce` and `settings.rate_limit`
 * decide here, before a run is inserted, whether a start runs now, later (queued with a
 * not-before time) or not at all. `concurrency_key` is kept where leases are taken (drive.ts).
 *
 * They apply to the starts people and triggers make: the API and dashboard (`manual`), webhooks
 * and polls; a schedule's fire is rate-limited but never debounced (its fires are already spaced,
 * and collapsing them would drop due times). Runs a run sets off (child, on_failure), retries,
 * replays and test runs are not held back.
 */

/**
 * A start refused by the rate limit (mode `skip`): the API's doors answer 202 `{status:
 * "skipped", reason}`; anywhere else (the dashboard, the MCP server's tools) it is the hub's
 * `rate_limited` error, saying so, never a 500.
 */
export class StartSkipped extends HubError {
  readonly reason = "rate_limited" as const;
  constructor() {
    super("rate_limited", "The workflow's rate_limit is reached; the start was skipped.");
  }
}

/** For a door's catch: a skipped start comes to undefined, any other failure is thrown on. */
export function skippedOrThrow(error: unknown): undefined {
  if (error instanceof StartSkipped) return undefined;
  throw error;
}

const CONTROLLED_TRIGGERS = new Set(["manual", "webhook", "poll", "schedule"]);

/** Whether flow control has a say in this start at all (a cheap test: no read). */
export function isControlled(settings: WorkflowSettings, run: RunRequest): boolean {
  if (!settings.debounce && !settings.rate_limit) return false;
  if (run.mode === "test" || run.child || run.replayOf) return false;
  return CONTROLLED_TRIGGERS.has(run.trigger ?? "manual");
}

export interface ControlledStart {
  execution: Execution;
  replayed?: boolean;
}

/**
 * Applies the workflow's debounce and rate limit to a start. Answers the run the start went into
 * when flow control placed it (queued for later, or a debounce window's run), or undefined when
 * it should start now the usual way (any rate-limit slot is taken already). Throws StartSkipped
 * when the rate limit skips it, after writing the agent's events-log entry.
 */
export async function startUnderFlowControl(
  ctx: ServiceContext,
  workflow: WorkflowRef,
  run: RunRequest,
  options: { idempotency?: IdempotencyKey; also?: StartAlongside } = {},
): Promise<ControlledStart | undefined> {
  const copy = typeof workflow === "number" ? await ownWorkflowCopy(ctx, workflow) : workflow;
  if (!copy) return undefined;
  const settings = copy.settings as WorkflowSettings;
  if (!isControlled(settings, run)) return undefined;
  // A start repeated under its key takes no place in a window or a rate: it finds its run.
  if (options.idempotency) {
    const first = await firstRunOf(ctx, options.idempotency).catch(() => undefined);
    if (first) return { execution: first, replayed: true };
  }
  const now = Date.now();
  const notBefore = async () => {
    if (!settings.rate_limit) return now;
    const at = await claimRateSlot(ctx, copy.id, settings.rate_limit, now);
    if (at === null) {
      if (run.agentId) await logSkipped(ctx, run, settings.rate_limit);
      throw new StartSkipped();
    }
    return at;
  };
  const debounce = run.trigger === "schedule" ? undefined : settings.debounce;
  if (debounce) {
    const keyHash = await keyHashOf(debounce.key, run.input);
    const started = await debounceStart(ctx, copy, run, debounce, keyHash, { ...options, ruledOpen: notBefore });
    if (!started.replayed) await enqueueExecution(ctx.bindings.WORKFLOW_RUNS, started.execution.id, (started.firesAt - Date.now()) / 1000);
    return started;
  }
  const at = await notBefore();
  if (at <= now) return undefined;
  const { execution, replayed } = await insertExecution(ctx, copy, { ...run, notBefore: new Date(at) }, undefined, options.idempotency, options.also);
  if (!replayed) await enqueueExecution(ctx.bindings.WORKFLOW_RUNS, execution.id, (at - Date.now()) / 1000);
  return { execution, replayed };
}

/** The agent's events-log entry of a skipped start (the triggers' log, GET /v1/agents/{id}/events). */
async function logSkipped(ctx: ServiceContext, run: RunRequest, rule: RateLimitSettings) {
  const trigger = run.trigger;
  const source = trigger === "webhook" || trigger === "poll" || trigger === "schedule" ? trigger : "manual";
  await ctx.db.insert(agentEvents).values({
    id: `evt_${randomToken(12)}`,
    agentId: run.agentId!,
    receivedAt: new Date(),
    source,
    outcome: "skipped",
    detail: `Skipped: the workflow's rate_limit allows ${rule.limit} start(s) per ${rule.period_seconds} s.`,
  });
}
