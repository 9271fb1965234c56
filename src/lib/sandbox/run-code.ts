import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { Budget, BudgetStop } from "./budget";
import { FILENAME, wrap } from "./compile";
import { ConsoleLines } from "./console-lines";
import { type Engine, newEngine } from "./engine";
import { failure, messageOf } from "./failures";
import { inputInto, resultOutOf } from "./json-bridge";
import { CODE_LIMITS } from "./limits";
import { PRELUDE } from "./prelude";
import { ENGINE_OVERHEAD_BYTES, limitRuntime } from "./runtime-setup";
import { SandboxText } from "./sandbox-text";
import { codeSizeProblem, inputSizeProblem } from "./sizes";

export { codeSyntaxProblem } from "./compile";

/**
 * User JavaScript in QuickJS compiled to WebAssembly: a fresh engine, runtime and context per run,
 * nothing in it but the input (as JSON) and a console whose lines are kept. No network, no
 * timers, no modules, no bindings: only the language and its built-ins. The engine's gas metering
 * and an interrupt handler hold the CPU budget and the wall clock (budget.ts), the runtime's
 * allocator the memory cap; everything read back out is bounded by the host (sandbox-text.ts).
 */

export interface CodeRun {
  /** The code's own lines (console.log and friends), the first `maxLogLines`, each bounded. */
  logs: string[];
  /** Lines logged past `maxLogLines`, not kept. */
  droppedLogs: number;
  /** How long the sandbox took, engine included (informative). */
  ms: number;
}
export type CodeOutcome = (CodeRun & { ok: true; value: unknown }) | (CodeRun & { ok: false; error: string });

export interface CodeOptions {
  /** The CPU budget in milliseconds (1 to `maxCpuMs`). */
  cpuMs?: number;
}

/**
 * Runs `code` as `async function (input) { <code> }` with `input` (through JSON) and answers the
 * JSON value it returns, or why it failed: the error with the code's line number, the budget,
 * the memory cap, a result that is not JSON or too large. Never throws for anything the code does.
 */
export async function runJavaScript(code: string, input: unknown, options: CodeOptions = {}): Promise<CodeOutcome> {
  const started = Date.now();
  const consoleLines = new ConsoleLines();
  const done = <T extends { ok: boolean }>(outcome: T) => ({
    ...outcome,
    logs: consoleLines.lines,
    droppedLogs: consoleLines.dropped,
    ms: Date.now() - started,
  });

  const codeProblem = codeSizeProblem(code);
  if (codeProblem) return done({ ok: false as const, error: codeProblem });
  const inputJson = JSON.stringify(input ?? null);
  const inputProblem = inputSizeProblem(inputJson);
  if (inputProblem) return done({ ok: false as const, error: inputProblem });
  const cpuMs = Math.min(Math.max(1, Math.floor(options.cpuMs ?? CODE_LIMITS.defaultCpuMs)), CODE_LIMITS.maxCpuMs);

  const budget = new Budget(cpuMs, started);
  let engine: Engine;
  try {
    engine = await newEngine(CODE_LIMITS.memoryBytes + ENGINE_OVERHEAD_BYTES, budget);
  } catch (error) {
    return done({ ok: false as const, error: `The sandbox could not start: ${messageOf(error)}` });
  }
  const runtime = engine.quickjs.newRuntime();
  const handles: QuickJSHandle[] = [];
  let context: QuickJSContext | undefined;
  let text: SandboxText | undefined;
  let stoppedHard = false;
  try {
    limitRuntime(runtime, budget);
    context = runtime.newContext();
    const vm = context;
    // Taken before anything else runs in the context: the code cannot have changed them yet.
    text = SandboxText.capture(vm);
    const keep = (handle: QuickJSHandle) => {
      handles.push(handle);
      return handle;
    };
    const emit = keep(consoleLines.emitter(vm, text, budget));
    const prelude = vm.evalCode(PRELUDE, "prelude.js");
    if (prelude.error) return done(failure(text, keep(prelude.error), budget, code));
    const helpers = keep(vm.unwrapResult(vm.callFunction(keep(prelude.value), vm.undefined, emit, keep(vm.newNumber(CODE_LIMITS.maxLogLineChars)))));

    const compiled = vm.evalCode(wrap(code), FILENAME, { type: "global" });
    if (compiled.error) return done(failure(text, keep(compiled.error), budget, code));
    const fn = keep(compiled.value);
    if (vm.typeof(fn) !== "function") return done({ ok: false as const, error: "The code must be the body of a function." });

    const parsed = inputInto(vm, helpers, inputJson, keep);
    if (parsed.error) return done(failure(text, keep(parsed.error), budget, code));
    const called = vm.callFunction(fn, vm.undefined, keep(parsed.value));
    if (called.error) return done(failure(text, keep(called.error), budget, code));
    const promise = keep(called.value);

    // `await` inside the code only ever waits for the sandbox's own promise jobs: run them all.
    while (runtime.hasPendingJob()) {
      const jobs = runtime.executePendingJobs();
      if (jobs.error) return done(failure(text, keep(jobs.error), budget, code));
      if (budget.check()) return done({ ok: false as const, error: budget.message() });
    }
    const state = vm.getPromiseState(promise);
    if (state.type === "pending") {
      return done({
        ok: false as const,
        error: "The code waited for a promise that never settles: nothing asynchronous (timers, network) is available in a code step.",
      });
    }
    if (state.type === "rejected") return done(failure(text, keep(state.error), budget, code));

    const result = resultOutOf(text, helpers, keep(state.value), keep, budget, code);
    if (!result.ok) return done(result);
    // Writing the result out is work too: a run that ends past its budget fails.
    if (budget.check()) return done({ ok: false as const, error: budget.message() });
    return done({ ok: true as const, value: JSON.parse(result.json) as unknown });
  } catch (error) {
    // Thrown by the engine itself, not by the code: the budget's stop in the middle of a built-in,
    // the host's stack, a trap in the WebAssembly.
    stoppedHard = error instanceof BudgetStop;
    if (budget.reason) return done({ ok: false as const, error: budget.message() });
    if (error instanceof RangeError) return done({ ok: false as const, error: "The code recursed too deeply." });
    return done({ ok: false as const, error: `The sandbox stopped: ${messageOf(error)}` });
  } finally {
    // The engine is dropped after the run whatever happens; disposing frees its memory early. One
    // stopped in the middle of its work is dropped as it is.
    if (!stoppedHard) {
      try {
        text?.dispose();
        for (const handle of handles.reverse()) if (handle.alive) handle.dispose();
        context?.dispose();
        runtime.dispose();
      } catch {
        // An engine left broken by the run (out of memory, say) is dropped as it is.
      }
    }
  }
}
