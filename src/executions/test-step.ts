import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { chargeToolCalls } from "../http/rate-limit";
import type { RateLimitResult } from "../http/rate-limiter";
import { utf8Length } from "../lib/bytes";
import { CODE_LIMITS } from "../lib/sandbox/limits";
import { runJavaScript } from "../lib/sandbox/run-code";
import { type Step, validateSteps } from "../workflows/steps";
import { childResult } from "./child-runs";
import { isFinished } from "./lease";
import { startAndRun } from "./start-and-run";
import { StepTrial, TRIAL_MS, type TrialContext, TrialFailed, TrialPaused } from "./step-trial";

/** What one test run of a step answers: what a run's step record would hold, never saved. */
export interface StepTestResult {
  /**
   * `waiting`: a run would wait here (a delay, an event, a person's approval) until `resume_at`;
   * `running`: a `workflow` step's test run had not ended within the time a test takes.
   */
  status: "succeeded" | "failed" | "waiting" | "running";
  /** The step's result (null when it failed). */
  result: unknown;
  error: string | null;
  /** A code step's console lines, the first CODE_LIMITS.maxLogLines (none for other steps). */
  logs: string[];
  logs_dropped: number;
  duration_ms: number;
  /** When a waiting step would go on (a delay's end, an event's timeout). */
  resume_at?: string;
  /** Model tokens the step spent (llm, agent). */
  tokens_used?: number;
  /** A `workflow` step: the test run of its workflow. */
  execution_id?: string;
}

/** What a test gives the step besides itself: the code's `input`, or for other steps the run's context. */
export interface StepTestGiven {
  input?: unknown;
  steps?: Record<string, unknown>;
  variables?: Record<string, unknown>;
}

/**
 * What the code gets when the test gives no input: the step's own `input` as written (nothing of
 * a run to substitute it from), or the shape a run's default has, empty.
 */
const defaultInput = (step: { input?: unknown }) => (step.input === undefined ? { input: {}, steps: {}, variables: {} } : step.input);

/**
 * Runs one step the person has typed, outside any workflow and without saving anything, as a run
 * would (DESIGN §6.5). A code step runs its JavaScript in the same sandbox with the same limits
 * (its `cpu_ms` included), `input` being what the code gets. Every other type runs once through
 * the executor's own handler (StepTrial) with `input` as the run's input, `steps` as the results
 * of steps before it and `variables` as the workflow's: a tool step calls the tool with the
 * caller's connections, charged and governed as any tool call; a delay or a wait_for_event answers
 * at once with when a run would go on; a failed attempt is the answer (retries are not waited
 * for); a `workflow` step starts a test run of its workflow. Each test spends one of the person's
 * tool calls (a tool step, the call itself), and the step's own failures are an answer
 * (`status: "failed"`), not an error.
 */
export async function testStep(
  ctx: ServiceContext,
  rawStep: unknown,
  given: StepTestGiven = {},
): Promise<{ outcome: StepTestResult; limits: RateLimitResult[] }> {
  const { steps, errors } = validateSteps([rawStep], "step");
  // validateSteps names the step by its place in a list ("step.0.code"): here there is one step.
  if (errors.length)
    throw new HubError("validation_failed", "The step is not valid.", { errors: errors.map((e) => ({ ...e, field: e.field.replace(/^step\.0/, "step") })) });
  const step = steps[0];
  if (!step) throw new Error("validateSteps answered no step");
  const input = given.input === undefined && step.type === "code" ? defaultInput(step) : given.input;
  const inputBytes = utf8Length(JSON.stringify({ input, steps: given.steps ?? {}, variables: given.variables ?? {} }));
  if (inputBytes > CODE_LIMITS.maxInputBytes) {
    throw new HubError(
      "validation_failed",
      `The input, steps and variables are ${inputBytes} bytes of JSON; a test takes at most ${CODE_LIMITS.maxInputBytes}.`,
      {
        errors: [{ location: "body", field: "input", message: `At most ${CODE_LIMITS.maxInputBytes} bytes of JSON with steps and variables.` }],
      },
    );
  }
  // A tool step's call is charged as the tool call it is; any other test counts as one.
  const limits = step.type === "tool" ? [] : await chargeToolCalls(ctx);
  if (step.type === "code") return { outcome: await testCode(step, input), limits };
  if (input !== undefined && (typeof input !== "object" || input === null || Array.isArray(input))) {
    throw new HubError("validation_failed", "The input is not valid.", {
      errors: [{ location: "body", field: "input", message: "For a step other than code, the run's input: an object." }],
    });
  }
  const context: TrialContext = { input: (input as Record<string, unknown>) ?? {}, steps: given.steps ?? {}, variables: given.variables ?? {} };
  const outcome = step.type === "workflow" ? await testWorkflowStep(ctx, step, context) : await tryStep(ctx, step, context);
  return { outcome, limits };
}

async function testCode(step: Extract<Step, { type: "code" }>, input: unknown): Promise<StepTestResult> {
  const run = await runJavaScript(step.code, input, { cpuMs: step.cpu_ms ?? CODE_LIMITS.defaultCpuMs });
  const common = { logs: run.logs, logs_dropped: run.droppedLogs, duration_ms: run.ms };
  return run.ok ? { status: "succeeded", result: run.value, error: null, ...common } : { status: "failed", result: null, error: run.error, ...common };
}

const NO_LOGS = { logs: [], logs_dropped: 0 };

/** Any step but code and workflow, through its handler: its record at the end is the answer. */
async function tryStep(ctx: ServiceContext, step: Step, context: TrialContext): Promise<StepTestResult> {
  const started = Date.now();
  const trial = new StepTrial(ctx, context);
  let stopped: TrialPaused | TrialFailed | undefined;
  try {
    await trial.run(step);
  } catch (error) {
    if (!(error instanceof TrialPaused || error instanceof TrialFailed)) throw error;
    stopped = error;
  }
  const record = trial.record(step.id);
  const common = { ...NO_LOGS, duration_ms: Date.now() - started, ...(record?.tokensUsed ? { tokens_used: record.tokensUsed } : {}) };
  if (stopped instanceof TrialFailed) return { status: "failed", result: null, error: stopped.message, ...common };
  // A failed attempt that a run would retry later: the test does not wait for it.
  if (record?.status === "retrying") return { status: "failed", result: null, error: record.errorMessage ?? "The step failed.", ...common };
  if (stopped instanceof TrialPaused) {
    // An agent step waiting for approvals keeps its journal as its result, as a run's record would.
    const result = step.type === "agent" ? (record?.result ?? null) : null;
    return { status: "waiting", result, error: null, resume_at: new Date(stopped.resumeAt).toISOString(), ...common };
  }
  if (record?.status === "skipped") return { status: "succeeded", result: null, error: record.errorMessage, ...common };
  return { status: "succeeded", result: record?.result ?? null, error: null, ...common };
}

/**
 * A `workflow` step starts a run of another workflow, so its test does too: a test run (mode
 * `test`, DESIGN §6.5) of that workflow with the step's input, waited for as long as a test
 * takes. Its result is what the step's would be: the run's id and its steps' results.
 */
async function testWorkflowStep(ctx: ServiceContext, step: Extract<Step, { type: "workflow" }>, context: TrialContext): Promise<StepTestResult> {
  const started = Date.now();
  const trial = new StepTrial(ctx, context);
  let input: Record<string, unknown>;
  try {
    input = trial.evaluate(step, () => trial.substitute(step.input, trial.root.context) as Record<string, unknown>);
  } catch (error) {
    return { status: "failed", result: null, error: error instanceof Error ? error.message : String(error), ...NO_LOGS, duration_ms: Date.now() - started };
  }
  let run: Awaited<ReturnType<typeof startAndRun>>;
  try {
    run = await startAndRun(ctx, step.workflow_id, { input, mode: "test" }, { waitSeconds: TRIAL_MS / 1000 });
  } catch (error) {
    // As in a run: a workflow that is not the caller's, or may not run now, fails the step.
    if (!(error instanceof HubError)) throw error;
    return {
      status: "failed",
      result: null,
      error: `The workflow ${step.workflow_id} could not start: ${error.message}`,
      ...NO_LOGS,
      duration_ms: Date.now() - started,
    };
  }
  const { execution, finished } = run;
  const ended = finished?.execution;
  const common = { ...NO_LOGS, duration_ms: Date.now() - started, execution_id: execution.id, ...(ended?.tokensUsed ? { tokens_used: ended.tokensUsed } : {}) };
  if (!ended || !isFinished(ended.status)) return { status: "running", result: null, error: null, ...common };
  if (ended.status === "succeeded") return { status: "succeeded", result: await childResult(ctx, ended), error: null, ...common };
  const reason = ended.errorMessage ?? `It was ${ended.status}.`;
  return { status: "failed", result: null, error: `The run ${ended.id} ${ended.status}: ${reason}`, ...common };
}
