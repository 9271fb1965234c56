// Follows a run until it ends (`hub runs tail`, and `--wait` on the commands that start one):
// polls GET /v1/executions/{id}, slower while nothing changes, and prints each step as it
// completes, parks or retries. The API has no event stream for runs; polling is its way.
import type { Schema } from "../index.ts";
import { printJson, unwrap } from "./output.ts";
import type { Session } from "./session.ts";

type Execution = Schema<"Execution">;
type Step = NonNullable<Execution["steps"]>[number];

const ENDED = new Set(["succeeded", "failed", "cancelled"]);
/** Step states worth a line; `running` is not (the step's end follows). */
const REPORTED = new Set(["succeeded", "failed", "skipped", "waiting", "retrying"]);
const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Prints the run's steps as they go and resolves with the ended run; the exit code is 1 unless it succeeded. */
export async function followRun({ client, json }: Session, executionId: string): Promise<Execution> {
  const printed = new Map<string, string>();
  let delay = FIRST_POLL_MS;
  for (;;) {
    const run = unwrap(await client.GET("/v1/executions/{execution_id}", { params: { path: { execution_id: executionId } } }));
    let changed = false;
    for (const step of run.steps ?? []) {
      const key = step.item === null ? step.step_id : `${step.step_id}#${step.item}`;
      if (!REPORTED.has(step.status) || printed.get(key) === step.status) continue;
      printed.set(key, step.status);
      changed = true;
      if (json) process.stdout.write(`${JSON.stringify({ step })}\n`);
      else printStep(key, step, run);
    }
    if (ENDED.has(run.status)) {
      if (json) process.stdout.write(`${JSON.stringify({ execution: run })}\n`);
      else printEnd(run);
      if (run.status !== "succeeded") process.exitCode = 1;
      return run;
    }
    delay = changed ? FIRST_POLL_MS : Math.min(Math.round(delay * 1.5), MAX_POLL_MS);
    await sleep(delay);
  }
}

function printStep(key: string, step: Step, run: Execution) {
  const took = step.duration_ms === null ? "" : `  ${step.duration_ms} ms`;
  const why =
    step.status === "failed" || step.status === "retrying"
      ? `  ${step.error_message ?? ""}`
      : step.status === "waiting" && run.waiting_for
        ? `  ${JSON.stringify(run.waiting_for)}`
        : "";
  process.stdout.write(`${step.status.padEnd(9)}  ${key} (${step.type})${took}${why}\n`);
}

function printEnd(run: Execution) {
  const where = run.failed_step_id ? ` at step ${run.failed_step_id}` : "";
  const error = run.error_message ? `: ${run.error_message}` : "";
  process.stdout.write(`run ${run.id} ${run.status}${run.status === "succeeded" ? "" : `${where}${error}`}\n`);
}

/** Prints a just-started run (the answer of an execute call), or follows it with --wait. */
export async function startedRun(session: Session, started: { execution_id?: string; status: string; reason?: string }, wait: boolean) {
  if (!started.execution_id) {
    // Refused for the workflow's rate limit (settings.rate_limit with on_limit: "skip"): nothing runs.
    if (session.json) printJson(started);
    else process.stdout.write(`not started: ${started.reason ?? started.status}\n`);
    process.exitCode = 1;
    return;
  }
  if (wait) {
    await followRun(session, started.execution_id);
    return;
  }
  if (session.json) printJson(started);
  else process.stdout.write(`started run ${started.execution_id} (${started.status}); follow it with: hub runs tail ${started.execution_id}\n`);
}
