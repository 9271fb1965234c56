import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { describeBytes, utf8Length } from "../bytes";
import { contextAddress, type Engine, newEngine } from "./engine";
import { CODE_LIMITS } from "./limits";

/**
 * User JavaScript in QuickJS compiled to WebAssembly: a fresh engine, runtime and context per run,
 * nothing in it but the input (as JSON) and a console whose lines are kept. No network, no
 * timers, no modules, no bindings: only the language and its built-ins. An interrupt handler
 * holds the CPU budget and the wall clock, the runtime's allocator the memory cap.
 */

/**
 * Where the clock stands still while code runs (Cloudflare's runtime moves it only on I/O), the
 * budget is counted in the interpreter's own steps (calls and backward jumps) instead: about
 * this many per millisecond of a plain loop on a small server core.
 */
const STEPS_PER_MS = 100_000;
/**
 * QuickJS asks the interrupt handler every 10,000 steps, which can be seconds apart when each
 * step is a long built-in call (`while (true) s.split("")`); the handler shortens the count it
 * finds in the context so that it is asked about once per `POLL_MS`.
 */
const QUICKJS_POLL_STEPS = 10_000;
const POLL_MS = 1;
/** How much of the JSContext structure is searched for the count (it sits about 230 bytes in). */
const CONTEXT_WORDS = 96;
/** Wasm memory beyond QuickJS's own allocations (its stack, static data, the allocator's slack). */
const ENGINE_OVERHEAD_BYTES = 32 * 1024 * 1024;
/** QuickJS's own stack limit, below the host's: deep recursion fails inside the sandbox, not in the Worker. */
const MAX_STACK_BYTES = 256 * 1024;
/** The user's code is the body of this function; its first line is line 1 of the code. */
const FILENAME = "code.js";
const wrap = (code: string) => `(async function (input) {\n${code}\n})`;

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
  const logs: string[] = [];
  let droppedLogs = 0;
  const done = <T extends { ok: boolean }>(outcome: T) => ({ ...outcome, logs, droppedLogs, ms: Date.now() - started });

  const codeProblem = codeSizeProblem(code);
  if (codeProblem) return done({ ok: false as const, error: codeProblem });
  const inputJson = JSON.stringify(input ?? null);
  const inputBytes = utf8Length(inputJson);
  if (inputBytes > CODE_LIMITS.maxInputBytes) {
    return done({
      ok: false as const,
      error: `The input is ${kib(inputBytes)} of JSON; a code step takes at most ${kib(CODE_LIMITS.maxInputBytes)}. Pass only what the code needs with the step's \`input\`.`,
    });
  }
  const cpuMs = Math.min(Math.max(1, Math.floor(options.cpuMs ?? CODE_LIMITS.defaultCpuMs)), CODE_LIMITS.maxCpuMs);

  const budget = new Budget(cpuMs, started);
  let engine: Engine;
  try {
    engine = await newEngine(CODE_LIMITS.memoryBytes + ENGINE_OVERHEAD_BYTES, () => !budget.check());
  } catch (error) {
    return done({ ok: false as const, error: `The sandbox could not start: ${messageOf(error)}` });
  }
  const runtime = engine.quickjs.newRuntime();
  const handles: QuickJSHandle[] = [];
  let context: QuickJSContext | undefined;
  try {
    runtime.setMemoryLimit(CODE_LIMITS.memoryBytes);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    runtime.setInterruptHandler(() => budget.poll());
    context = runtime.newContext();
    const vm = context;
    budget.watch(engine.memory, contextAddress(vm));
    const keep = (handle: QuickJSHandle) => {
      handles.push(handle);
      return handle;
    };
    const emit = keep(
      vm.newFunction("emit", (line) => {
        if (logs.length < CODE_LIMITS.maxLogLines) logs.push(vm.getString(line));
        else droppedLogs++;
      }),
    );
    const prelude = vm.evalCode(PRELUDE, "prelude.js");
    if (prelude.error) return done(failure(vm, keep(prelude.error), budget, code));
    const helpers = keep(vm.unwrapResult(vm.callFunction(keep(prelude.value), vm.undefined, emit, keep(vm.newNumber(CODE_LIMITS.maxLogLineChars)))));

    const compiled = vm.evalCode(wrap(code), FILENAME, { type: "global" });
    if (compiled.error) return done(failure(vm, keep(compiled.error), budget, code));
    const fn = keep(compiled.value);
    if (vm.typeof(fn) !== "function") return done({ ok: false as const, error: "The code must be the body of a function." });

    const parsed = vm.callFunction(keep(vm.getProp(helpers, "parse")), vm.undefined, keep(vm.newString(inputJson)));
    if (parsed.error) return done(failure(vm, keep(parsed.error), budget, code));
    const called = vm.callFunction(fn, vm.undefined, keep(parsed.value));
    if (called.error) return done(failure(vm, keep(called.error), budget, code));
    const promise = keep(called.value);

    // `await` inside the code only ever waits for the sandbox's own promise jobs: run them all.
    while (runtime.hasPendingJob()) {
      const jobs = runtime.executePendingJobs();
      if (jobs.error) return done(failure(vm, keep(jobs.error), budget, code));
      if (budget.check()) return done({ ok: false as const, error: budget.message() });
    }
    const state = vm.getPromiseState(promise);
    if (state.type === "pending") {
      return done({
        ok: false as const,
        error: "The code waited for a promise that never settles: nothing asynchronous (timers, network) is available in a code step.",
      });
    }
    if (state.type === "rejected") return done(failure(vm, keep(state.error), budget, code));
    const value = keep(state.value);

    const serialised = vm.callFunction(keep(vm.getProp(helpers, "json")), vm.undefined, value, keep(vm.newNumber(CODE_LIMITS.maxResultBytes)));
    if (serialised.error) return done(notJson(vm, keep(serialised.error), budget, code));
    const text = keep(serialised.value);
    if (vm.typeof(text) === "number") return done({ ok: false as const, error: tooLarge(vm.getNumber(text)) });
    const json = vm.getString(text);
    if (utf8Length(json) > CODE_LIMITS.maxResultBytes) return done({ ok: false as const, error: tooLarge(utf8Length(json)) });
    // A native built-in runs without the interpreter's checks; its time still counts.
    if (budget.exceededAfterwards()) return done({ ok: false as const, error: budget.message() });
    return done({ ok: true as const, value: JSON.parse(json) as unknown });
  } catch (error) {
    // Thrown by the engine itself, not by the code: the host's stack, a trap in the WebAssembly.
    if (error instanceof RangeError) return done({ ok: false as const, error: "The code recursed too deeply." });
    if (budget.reason) return done({ ok: false as const, error: budget.message() });
    return done({ ok: false as const, error: `The sandbox stopped: ${messageOf(error)}` });
  } finally {
    // The engine is dropped after the run whatever happens; disposing frees its memory early.
    try {
      for (const handle of handles.reverse()) if (handle.alive) handle.dispose();
      context?.dispose();
      runtime.dispose();
    } catch {
      // An engine left broken by the run (out of memory, say) is dropped as it is.
    }
  }
}

/**
 * Why `code` would not compile as a code step's body (the message with its line), or null.
 * Compiles only: nothing of the code runs.
 */
export async function codeSyntaxProblem(code: string): Promise<string | null> {
  const sizeProblem = codeSizeProblem(code);
  if (sizeProblem) return sizeProblem;
  const budget = new Budget(CODE_LIMITS.maxCpuMs);
  const engine = await newEngine(CODE_LIMITS.memoryBytes + ENGINE_OVERHEAD_BYTES);
  const runtime = engine.quickjs.newRuntime();
  runtime.setMemoryLimit(CODE_LIMITS.memoryBytes);
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  runtime.setInterruptHandler(() => budget.poll());
  const context = runtime.newContext();
  try {
    const compiled = context.evalCode(wrap(code), FILENAME, { type: "global", compileOnly: true });
    if (!compiled.error) {
      compiled.value.dispose();
      return null;
    }
    const problem = failure(context, compiled.error, budget, code);
    compiled.error.dispose();
    return problem.error;
  } catch (error) {
    return error instanceof RangeError ? "The code is nested too deeply to compile." : `The code could not be compiled: ${messageOf(error)}`;
  } finally {
    try {
      context.dispose();
      runtime.dispose();
    } catch {
      // dropped with the engine
    }
  }
}

function codeSizeProblem(code: string): string | null {
  const bytes = utf8Length(code);
  return bytes > CODE_LIMITS.maxCodeBytes ? `The code is ${kib(bytes)}; a code step holds at most ${kib(CODE_LIMITS.maxCodeBytes)}.` : null;
}

const tooLarge = (size: number) =>
  `The result is ${kib(size)} of JSON; a code step returns at most ${kib(CODE_LIMITS.maxResultBytes)}. Return only what the next steps need.`;
/** A size near a limit of 1 MiB, exactly enough to tell the two apart. */
const kib = (bytes: number) => `${Math.ceil(bytes / 1024).toLocaleString("en-US")} KiB`;

/**
 * The CPU budget and the wall clock, checked by QuickJS's interrupt handler (and before the
 * engine's memory grows). Where the clock moves while code runs (workerd locally, Node), the
 * budget is the time the run takes, which is its CPU time: nothing in the sandbox waits. Where
 * the clock stands still, it is counted in interpreter steps.
 */
class Budget {
  private readonly started = Date.now();
  private steps = 0;
  private clockMoves = false;
  reason: "cpu" | "wall" | null = null;
  /** Where QuickJS keeps the context's step count, once found; how many steps until it asks again. */
  private watched: { memory: WebAssembly.Memory; contextAddress: number } | null = null;
  private counter: { memory: WebAssembly.Memory; index: number } | null = null;
  private pollSteps = 100;
  private lastPoll = performance.now();

  constructor(
    private readonly cpuMs: number,
    /** When the whole run started, engine included: the wall clock counts from there. */
    private readonly wallStarted = Date.now(),
  ) {}

  /** The engine's memory and the context whose step count the handler shortens (see `locate`). */
  watch(memory: WebAssembly.Memory, contextAddress: number) {
    this.watched = { memory, contextAddress };
  }

  /**
   * Finds the context's step count (QuickJS's JSContext.interrupt_counter), which QuickJS has just
   * set to QUICKJS_POLL_STEPS before asking the handler: the only such number in the structure's
   * first bytes. If it cannot be told apart, the handler is asked as often as QuickJS asks by itself.
   */
  private locate() {
    const { memory, contextAddress } = this.watched!;
    this.watched = null;
    const words = new Int32Array(memory.buffer, contextAddress, CONTEXT_WORDS);
    const found: number[] = [];
    words.forEach((word, i) => {
      if (word === QUICKJS_POLL_STEPS) found.push(i);
    });
    if (found.length === 1) this.counter = { memory, index: contextAddress / 4 + found[0]! };
  }

  /** QuickJS's interrupt handler: counts the steps since it last asked, checks, and says when to ask next. */
  poll(): boolean {
    if (this.reason) return true;
    this.steps += this.counter ? this.pollSteps : QUICKJS_POLL_STEPS;
    if (this.check()) return true;
    if (this.watched) this.locate();
    this.retune();
    return false;
  }

  /** Whether the run is past its budget or the wall clock (also asked between promise jobs and before memory grows). */
  check(): boolean {
    if (this.reason) return true;
    const now = Date.now();
    const elapsed = now - this.started;
    if (elapsed > 0) this.clockMoves = true;
    if (now - this.wallStarted > CODE_LIMITS.wallMs) this.reason = "wall";
    else if (this.clockMoves ? elapsed > this.cpuMs : this.steps > this.cpuMs * STEPS_PER_MS) this.reason = "cpu";
    return this.reason !== null;
  }

  /** A run that ended on its own but took longer than its budget (one long built-in call, which nothing interrupts). */
  exceededAfterwards(): boolean {
    if (!this.reason && Date.now() - this.started > this.cpuMs) this.reason = "cpu";
    return this.reason !== null;
  }

  message(): string {
    return this.reason === "wall"
      ? `The code ran past the wall clock of ${CODE_LIMITS.wallMs / 1000} s.`
      : `The code ran past its CPU budget of ${this.cpuMs} ms (cpu_ms, at most ${CODE_LIMITS.maxCpuMs}).`;
  }

  /** Asked sooner when the last steps took long, later when they were quick: about every POLL_MS. */
  private retune() {
    if (!this.counter) return;
    const now = performance.now();
    const took = now - this.lastPoll;
    this.lastPoll = now;
    if (took > POLL_MS) this.pollSteps = Math.max(1, Math.floor(this.pollSteps / 2));
    else if (took < POLL_MS / 4) this.pollSteps = Math.min(QUICKJS_POLL_STEPS, this.pollSteps * 2);
    this.setCounter(this.pollSteps);
  }

  private setCounter(steps: number) {
    if (!this.counter) return;
    const words = new Int32Array(this.counter.memory.buffer);
    // QuickJS has just set it to QUICKJS_POLL_STEPS (or nothing has run yet): anything else means
    // this is not the count, and it is left alone from here on.
    if (words[this.counter.index] !== QUICKJS_POLL_STEPS) {
      this.counter = null;
      return;
    }
    words[this.counter.index] = steps;
  }
}

/** What the code threw (or the sandbox stopped it for), as a sentence with the code's line number. */
function failure(vm: QuickJSContext, error: QuickJSHandle, budget: Budget, code: string): { ok: false; error: string } {
  if (budget.reason) return { ok: false, error: budget.message() };
  let thrown: unknown;
  try {
    thrown = vm.dump(error);
  } catch {
    thrown = undefined;
  }
  if (isErrorLike(thrown)) {
    if (thrown.name === "InternalError" && /out of memory/i.test(thrown.message)) {
      return { ok: false, error: `The code ran out of memory (at most ${describeBytes(CODE_LIMITS.memoryBytes)}).` };
    }
    if (thrown.name === "InternalError" && thrown.message === "interrupted") return { ok: false, error: budget.message() };
    const line = lineOf(thrown.stack, code);
    return { ok: false, error: `${thrown.name}: ${thrown.message}${line ? ` (line ${line})` : ""}` };
  }
  return { ok: false, error: `The code threw ${describeThrown(thrown)}.` };
}

/** Why the returned value could not be turned into JSON (a function, a symbol, a cycle, a BigInt). */
function notJson(vm: QuickJSContext, error: QuickJSHandle, budget: Budget, code: string): { ok: false; error: string } {
  const problem = failure(vm, error, budget, code);
  if (budget.reason || problem.error.startsWith("The code ran out")) return problem;
  const message = problem.error.replace(/^[A-Za-z]*Error: /, "").replace(/ \(line \d+\)$/, "");
  return { ok: false, error: `The result is not JSON: ${message}.` };
}

function isErrorLike(value: unknown): value is { name: string; message: string; stack?: string } {
  return typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string" && "message" in value;
}

/** The code's own line of the innermost frame in its source (the wrapper's first line is not the code's). */
function lineOf(stack: string | undefined, code: string): number | null {
  const match = stack?.match(/code\.js:(\d+)/);
  if (!match) return null;
  const line = Number(match[1]) - 1;
  const lines = code.split("\n").length;
  return line >= 1 && line <= lines ? line : line > lines ? lines : null;
}

function describeThrown(value: unknown): string {
  if (value === undefined) return "undefined";
  let text: string;
  try {
    text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Runs first in every context, before the user's code: the console (its lines go to `emit`,
 * each at most `maxChars`), clear refusals for what a code step cannot do, and the JSON
 * helpers that carry the input in and the result out, holding their own copies of JSON's
 * functions so that code changing the built-ins changes only its own result.
 */
const PRELUDE = `(function (emit, maxChars) {
  "use strict";
  const stringify = JSON.stringify, parse = JSON.parse, toText = String, ErrorType = Error, TypeErrorType = TypeError;
  function show(value) {
    try {
      if (typeof value === "string") return value;
      if (value === undefined) return "undefined";
      if (typeof value === "function") return "[Function " + (value.name || "anonymous") + "]";
      if (typeof value === "symbol" || typeof value === "bigint") return toText(value);
      if (value instanceof ErrorType) return value.name + ": " + value.message;
      const text = stringify(value);
      return text === undefined ? toText(value) : text;
    } catch (error) {
      try { return toText(value); } catch (again) { return "[value that cannot be shown]"; }
    }
  }
  function writer(level) {
    return function () {
      let line = level;
      for (let i = 0; i < arguments.length; i++) {
        line += (i > 0 ? " " : "") + show(arguments[i]);
        if (line.length > maxChars) break;
      }
      emit(line.length > maxChars ? line.slice(0, maxChars) + "…" : line);
    };
  }
  const log = writer("");
  globalThis.console = { log: log, info: log, debug: log, trace: log, warn: writer("warn: "), error: writer("error: ") };
  function unavailable(name, why) {
    return function () { throw new TypeErrorType(name + " is not available in a code step: " + why); };
  }
  globalThis.fetch = unavailable("fetch", "it has no network. Call out with a tool step and pass its result in.");
  globalThis.require = unavailable("require", "it has no modules, only the language's built-ins.");
  function where(key) { return key === "" ? "" : " (at key " + stringify(toText(key)) + ")"; }
  return {
    parse: function (text) { return parse(text); },
    json: function (value, maxLength) {
      if (value === undefined) return "null";
      const text = stringify(value, function (key, item) {
        if (typeof item === "function") throw new TypeErrorType("it holds a function" + where(key));
        if (typeof item === "symbol") throw new TypeErrorType("it holds a symbol" + where(key));
        return item;
      });
      if (text === undefined) return "null";
      return text.length > maxLength ? text.length : text;
    },
  };
})`;
