import { CODE_LIMITS } from "./limits";

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

/**
 * The CPU budget and the wall clock, checked by QuickJS's interrupt handler (and before the
 * engine's memory grows). Where the clock moves while code runs (workerd locally, Node), the
 * budget is the time the run takes, which is its CPU time: nothing in the sandbox waits. Where
 * the clock stands still, it is counted in interpreter steps.
 */
export class Budget {
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
