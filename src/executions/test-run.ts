import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { type FieldError, notFound, validationFailed } from "../core/errors";
import { agents } from "../db/schema";
import { utf8Length } from "../lib/bytes";
import { getOwnedWorkflow } from "../workflows/service";
import { type Step, findStep } from "../workflows/steps";
import { MAX_RESULT_CHARS } from "./scope";
import { type RunOptions, type StartedRun, startAndRun } from "./start-and-run";

/** The most steps a test run may pin, and the most bytes of JSON their results may hold together. */
export const MAX_PINNED_STEPS = 100;
export const MAX_PINNED_BYTES = 2 * MAX_RESULT_CHARS;

/**
 * A test run (DESIGN §6.5): a run of one of the caller's workflows, as it is now, with `mode:
 * "test"`. Its pinned steps do not run and give the result they were pinned to (run.ts), and it
 * counts in no agent's monitoring, sends no notification, starts no on_failure run and is never
 * replayed. It is started and driven like any run started through the API. With `agentId` (one
 * of the caller's agents that deploys this workflow) it runs as that agent's run would: its
 * settings, goal and budgets apply, and `{{agent.id}}` is set; it still counts in none of its numbers.
 */
export async function startTestRun(
  ctx: ServiceContext,
  workflowId: number,
  input: Record<string, unknown>,
  pinned: Record<string, unknown>,
  options: Pick<RunOptions, "waitSeconds"> & { agentId?: string },
): Promise<StartedRun> {
  const workflow = await getOwnedWorkflow(ctx, workflowId);
  const errors = pinnedErrors(workflow.steps as Step[], pinned);
  if (options.agentId) {
    const agent = await ctx.db
      .select({ workflowId: agents.workflowId })
      .from(agents)
      .where(and(eq(agents.id, options.agentId), eq(agents.userId, ctx.workspace.id)))
      .get();
    if (!agent) throw notFound("Agent");
    if (agent.workflowId !== workflow.id) errors.push({ location: "body", field: "agent_id", message: "That agent deploys another workflow." });
  }
  if (errors.length) throw validationFailed(errors, "The test run's fields do not fit the workflow.");
  const run = { input, mode: "test" as const, pinned: ids(pinned).length ? pinned : undefined, agentId: options.agentId };
  return startAndRun(ctx, workflow, run, { waitSeconds: options.waitSeconds });
}

/**
 * What is wrong with the pins, each naming its field (`pinned.<step id>`): a step the workflow
 * does not have, a result a step of its type could not have given (a `set` gives an object, a
 * `condition` the branch it took), or more than a run may hold.
 */
export function pinnedErrors(steps: Step[], pinned: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  if (ids(pinned).length > MAX_PINNED_STEPS) return [{ location: "body", field: "pinned", message: `At most ${MAX_PINNED_STEPS} pinned steps.` }];
  let total = 0;
  for (const id of ids(pinned)) {
    const field = `pinned.${id}`;
    const step = findStep(steps, id);
    const bytes = utf8Length(JSON.stringify(pinned[id] ?? null));
    total += bytes;
    if (!step) errors.push({ location: "body", field, message: `The workflow has no step "${id}".` });
    else if (bytes > MAX_RESULT_CHARS)
      errors.push({ location: "body", field, message: `A step's result holds at most ${MAX_RESULT_CHARS / 1024} KiB of JSON.` });
    else if (step.type === "set" && !isObject(pinned[id])) errors.push({ location: "body", field, message: "A set step's result is an object of values." });
    else if (step.type === "condition" && !takesABranch(pinned[id]))
      errors.push({ location: "body", field, message: 'A condition step\'s result names its branch: {"branch": "then"} or {"branch": "else"}.' });
  }
  if (total > MAX_PINNED_BYTES)
    errors.push({ location: "body", field: "pinned", message: `The pinned results hold at most ${MAX_PINNED_BYTES / 1024} KiB of JSON together.` });
  return errors;
}

const ids = (pinned: Record<string, unknown>) => Object.keys(pinned);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const takesABranch = (value: unknown) => isObject(value) && (value.branch === "then" || value.branch === "else");
