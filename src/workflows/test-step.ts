import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { chargeToolCalls } from "../http/rate-limit";
import type { RateLimitResult } from "../http/rate-limiter";
import { utf8Length } from "../lib/bytes";
import { CODE_LIMITS } from "../lib/sandbox/limits";
import { runJavaScript } from "../lib/sandbox/run-code";
import { validateSteps } from "./steps";

/** What one test run of a step answers: what a run's step record would hold, never saved. */
export interface StepTestResult {
  status: "succeeded" | "failed";
  /** Exactly what the code returned (null when it failed). */
  result: unknown;
  error: string | null;
  /** The code's console lines, the first CODE_LIMITS.maxLogLines. */
  logs: string[];
  logs_dropped: number;
  duration_ms: number;
}

/** The step types a test run can run: only code for now (a tool step has `POST /v1/tools/call`). */
const TESTABLE = ["code"];

/**
 * What the code gets when the test gives no input: the step's own `input` as written (nothing of
 * a run to substitute it from), or the shape a run's default has, empty.
 */
const defaultInput = (step: { input?: unknown }) => (step.input === undefined ? { input: {}, steps: {}, variables: {} } : step.input);

/**
 * Runs one step the person has typed, outside any workflow and without saving anything: a code
 * step's JavaScript in the same sandbox, with the same limits (its `cpu_ms` included), as a run
 * would. Each test spends one of the person's tool calls (a test is work a call would be), and
 * the code's own failures are an answer (`status: "failed"`), not an error.
 */
export async function testStep(ctx: ServiceContext, rawStep: unknown, input?: unknown): Promise<{ outcome: StepTestResult; limits: RateLimitResult[] }> {
  const type = typeof rawStep === "object" && rawStep !== null && !Array.isArray(rawStep) ? (rawStep as { type?: unknown }).type : undefined;
  if (typeof type !== "string" || !TESTABLE.includes(type)) {
    throw new HubError("bad_request", `Only code steps can be run on their own for now; this step's type is ${JSON.stringify(type ?? null)}.`);
  }
  const { steps, errors } = validateSteps([rawStep], "step");
  // validateSteps names the step by its place in a list ("step.0.code"): here there is one step.
  if (errors.length)
    throw new HubError("validation_failed", "The step is not valid.", { errors: errors.map((e) => ({ ...e, field: e.field.replace(/^step\.0/, "step") })) });
  const step = steps[0];
  if (step?.type !== "code") throw new Error("validateSteps answered another step type");
  const given = input === undefined ? defaultInput(step) : input;
  const inputBytes = utf8Length(JSON.stringify(given ?? null));
  if (inputBytes > CODE_LIMITS.maxInputBytes) {
    throw new HubError("validation_failed", `The input is ${inputBytes} bytes of JSON; a code step takes at most ${CODE_LIMITS.maxInputBytes}.`, {
      errors: [{ location: "body", field: "input", message: `At most ${CODE_LIMITS.maxInputBytes} bytes of JSON.` }],
    });
  }
  const limits = await chargeToolCalls(ctx);
  const run = await runJavaScript(step.code, given, { cpuMs: step.cpu_ms ?? CODE_LIMITS.defaultCpuMs });
  const common = { logs: run.logs, logs_dropped: run.droppedLogs, duration_ms: run.ms };
  const outcome: StepTestResult = run.ok
    ? { status: "succeeded", result: run.value, error: null, ...common }
    : { status: "failed", result: null, error: run.error, ...common };
  return { outcome, limits };
}
