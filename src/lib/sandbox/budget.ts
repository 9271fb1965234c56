import type { EngineHooks } from "./engine";
import { CODE_LIMITS } from "./limits";

/**
 * The engine is metered (scripts/meter-quickjs.mjs): each loop iteration and each recursive call
 * costs one unit of work, each 64 bytes copied or filled another, in the interpreter and in every
 * built-in alike, so one built-in call (`s.indexOf` over 30 MB, a huge `sort` or `split`, a
 * backtracking regex) pays for what it does. This many units are about a millisecond of CPU on a
 * small server core: the budget's milliseconds are counted in them where the clock stands still
 * while code computes (Cloudflare's runtime moves it only on I/O). Calibrated on a plain loop with
 * `node bench/sandbox.mjs` (about 300,000 a millisecond); other work runs from 200,000
 * (JSON.stringify of many small objects: its budget lasts up to 1.5 times longer) to 440,000 (a
 * tight search such as indexOf: stopped sooner).
 */
export const WORK_UNITS_PER_MS = 300_000;
/** The engine asks the host for more every quantum (about a millisecond of work): the clocks are checked then too. */
const QUANTUM = WORK_UNITS_PER_MS;
/**
 * What a run past its budget still gets, so that QuickJS's interrupt (asked every 10,000
 * interpreter steps) stops it cleanly; a built-in that does not return by then is stopped hard.
 */
const GRACE = 2 * WORK_UNITS_PER_MS;

/**
 * What a call from the code into the host (a console line) costs in work, which the engine's own
 * units do not see (quickjs-emscripten's callback and handles, the line's copy): 10 to 30 µs
 * measured, charged as 20.
 */
export const HOST_CALL_UNITS = WORK_UNITS_PER_MS / 50;

/** Thrown out of the engine when a run past its budget did not stop within its grace: the engine is then dropped. */
export class BudgetStop extends Error {}

/**
 * The CPU budget and the wall clock of one run, held by the host: the engine's gas (asked for
 * every quantum, charged in work units), QuickJS's interrupt handler, and the check before the
 * engine's memory grows. A run is past its budget when its work or, where the clock moves while
 * code runs (workerd locally, Node), its time is past `cpuMs`, whichever comes first.
 */
export class Budget implements EngineHooks {
  private readonly started = Date.now();
  reason: "cpu" | "wall" | null = null;
  /** Work units of the quanta used up; the quantum the engine holds now; the engine's own counter of what is left of it. */
  private spent = 0;
  private granted = 0;
  private gas: WebAssembly.Global | null = null;
  private graceGiven = false;
  private readonly workLimit: number;

  constructor(
    private readonly cpuMs: number,
    /** When the whole run started, engine included: the wall clock counts from there. */
    private readonly wallStarted = Date.now(),
  ) {
    this.workLimit = cpuMs * WORK_UNITS_PER_MS;
  }

  /** The engine's gas counter (its exported global), read to know the work done within a quantum. */
  attach(gas: WebAssembly.Global) {
    this.gas = gas;
  }

  /** The work units the engine has done so far. */
  work(): number {
    const left = this.gas ? (this.gas.value as number) : this.granted;
    return this.spent + this.granted - left;
  }

  /**
   * The engine's gas ran out (`left` is zero or below): charges the quantum, then answers the
   * next one, the grace once past the budget, or throws `BudgetStop` to stop the engine.
   */
  refill(left: number): number {
    this.spent += this.granted - left;
    // Until the engine stores the answer, its counter still holds `left`: nothing more is owed.
    this.granted = left;
    if (this.check()) {
      if (this.graceGiven) throw new BudgetStop(this.message());
      this.graceGiven = true;
      this.granted = GRACE;
    } else this.granted = Math.min(QUANTUM, this.workLimit - this.spent + 1);
    return this.granted;
  }

  /** Work the host did for the code: taken from the engine's counter, so that it asks for more (and is checked) sooner. */
  charge(units: number) {
    if (this.gas) this.gas.value = (this.gas.value as number) - units;
    else this.spent += units;
  }

  /** Asked before the engine's memory grows: not past the budget. */
  mayGrow(): boolean {
    return !this.check();
  }

  /** QuickJS's interrupt handler: true stops the code (an uncatchable error in the sandbox). */
  poll(): boolean {
    return this.check();
  }

  /** Whether the run is past its budget or the wall clock (also asked between promise jobs, before memory grows and at the end). */
  check(): boolean {
    if (this.reason) return true;
    const now = Date.now();
    if (now - this.wallStarted > CODE_LIMITS.wallMs) this.reason = "wall";
    else if (now - this.started > this.cpuMs || this.work() > this.workLimit) this.reason = "cpu";
    return this.reason !== null;
  }

  message(): string {
    return this.reason === "wall"
      ? `The code ran past the wall clock of ${CODE_LIMITS.wallMs / 1000} s.`
      : `The code ran past its CPU budget of ${this.cpuMs} ms (cpu_ms, at most ${CODE_LIMITS.maxCpuMs}).`;
  }
}
