import { Budget, BudgetStop } from "./budget";
import { newEngine } from "./engine";
import { failure, messageOf } from "./failures";
import { CODE_LIMITS } from "./limits";
import { ENGINE_OVERHEAD_BYTES, limitRuntime } from "./runtime-setup";
import { SandboxText } from "./sandbox-text";
import { codeSizeProblem } from "./sizes";

/** The user's code is the body of this function; its first line is line 1 of the code. */
export const FILENAME = "code.js";
export const wrap = (code: string) => `(async function (input) {\n${code}\n})`;

/**
 * Why `code` would not compile as a code step's body (the message with its line), or null.
 * Compiles only: nothing of the code runs.
 */
export async function codeSyntaxProblem(code: string): Promise<string | null> {
  const sizeProblem = codeSizeProblem(code);
  if (sizeProblem) return sizeProblem;
  const budget = new Budget(CODE_LIMITS.maxCpuMs);
  const engine = await newEngine(CODE_LIMITS.memoryBytes + ENGINE_OVERHEAD_BYTES, budget);
  const runtime = engine.quickjs.newRuntime();
  limitRuntime(runtime, budget);
  const context = runtime.newContext();
  let stoppedHard = false;
  let text: SandboxText | undefined;
  try {
    text = SandboxText.capture(context);
    const compiled = context.evalCode(wrap(code), FILENAME, { type: "global", compileOnly: true });
    if (!compiled.error) {
      compiled.value.dispose();
      return null;
    }
    const problem = failure(text, compiled.error, budget, code);
    compiled.error.dispose();
    return problem.error;
  } catch (error) {
    stoppedHard = error instanceof BudgetStop;
    if (budget.reason) return budget.message();
    return error instanceof RangeError ? "The code is nested too deeply to compile." : `The code could not be compiled: ${messageOf(error)}`;
  } finally {
    // An engine stopped in the middle of its work is dropped as it is.
    try {
      if (!stoppedHard) {
        text?.dispose();
        context.dispose();
        runtime.dispose();
      }
    } catch {
      // dropped with the engine
    }
  }
}
