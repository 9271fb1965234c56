import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { Budget, HOST_CALL_UNITS, WORK_UNITS_PER_MS } from "../../src/lib/sandbox/budget";
import { runJavaScript } from "../../src/lib/sandbox/run-code";

/**
 * The CPU budget holds where the clock stands still while code computes, as on Cloudflare, where
 * Date.now() and performance.now() move only on I/O: the engine's own gas pays for what built-ins
 * do, so one call that works for seconds cannot outlast the budget.
 */

const frozenAt = Date.now();
/** The budgets of the runs, to read how much work each was let do. */
let refills: MockInstance<Budget["refill"]>;

beforeEach(() => {
  vi.spyOn(Date, "now").mockReturnValue(frozenAt);
  vi.spyOn(performance, "now").mockReturnValue(0);
  refills = vi.spyOn(Budget.prototype, "refill");
});
afterEach(() => vi.restoreAllMocks());

/** Runs `code` with the clock frozen and answers its error and the work the engine did. */
async function stopped(code: string, cpuMs: number) {
  refills.mockClear();
  const outcome = await runJavaScript(code, {}, { cpuMs });
  const budgets = new Set(refills.mock.contexts as Budget[]);
  expect(budgets.size).toBe(1);
  return { outcome, work: [...budgets][0]!.work() };
}

/**
 * At most the budget, the grace to stop cleanly in (2 ms of work), and what one instruction can
 * charge past the last quantum (a memory.copy of the whole 64 MiB: about 4 ms of work).
 */
const mostWorkFor = (cpuMs: number) => (cpuMs + 2 + 4) * WORK_UNITS_PER_MS;

describe("the CPU budget with a clock that stands still", () => {
  it("stops a long built-in call: a loop of indexOf over 30 MB, a huge split, JSON.stringify, sort and a regex over long text", async () => {
    const programs = [
      // Each finite, so that without the gas (one built-in call, one step) they would end and pass.
      'const s = "x".repeat(3e7);\nfor (let i = 0; i < 20; i++) s.indexOf("y");\nreturn 1;',
      'const s = "x,".repeat(2e6);\nfor (let i = 0; i < 10; i++) s.split(",");\nreturn 1;',
      "const a = new Array(1e6).fill({ a: 1 });\nfor (let i = 0; i < 10; i++) JSON.stringify(a);\nreturn 1;",
      "const a = Array.from({ length: 3e5 }, (_, i) => (i * 7919) % 100003);\nfor (let i = 0; i < 10; i++) a.slice().sort();\nreturn 1;",
      'const s = "a".repeat(3e4);\nfor (let i = 0; i < 10; i++) /a*c/.test(s);\nreturn 1;',
      // Copies: one memory.copy of megabytes at a time.
      'let s = "x".repeat(1e7);\nfor (let i = 0; i < 200; i++) s = (s + "y").substring(1);\nreturn 1;',
    ];
    for (const code of programs) {
      const { outcome, work } = await stopped(code, 50);
      expect(outcome, code).toMatchObject({ ok: false, error: "The code ran past its CPU budget of 50 ms (cpu_ms, at most 2000)." });
      expect(work, code).toBeLessThanOrEqual(mostWorkFor(50));
    }
  });

  it('stops `const s = "x".repeat(3e7); for (;;) s.indexOf("y")` at its budget', async () => {
    const { outcome, work } = await stopped('const s = "x".repeat(3e7); for (;;) s.indexOf("y")', 200);
    expect(outcome).toMatchObject({ ok: false, error: "The code ran past its CPU budget of 200 ms (cpu_ms, at most 2000)." });
    expect(work).toBeLessThanOrEqual(mostWorkFor(200));
    // The next run is whole.
    expect(await runJavaScript('return "ok".repeat(2);', {})).toMatchObject({ ok: true, value: "okok" });
  });

  it("counts the host's work for the code: an endless loop of console lines stops at its budget", async () => {
    const { outcome, work } = await stopped('for (;;) console.log("x");', 50);
    expect(outcome).toMatchObject({ ok: false, error: "The code ran past its CPU budget of 50 ms (cpu_ms, at most 2000)." });
    expect(work).toBeLessThanOrEqual(mostWorkFor(50));
    // Each line costs what the host spends on it, not only the few units of the call inside.
    expect(outcome.logs.length + outcome.droppedLogs).toBeLessThanOrEqual(mostWorkFor(50) / HOST_CALL_UNITS);
  });

  it("stops a plain loop and an endless chain of promise jobs, and lets small code finish", async () => {
    expect((await stopped("while (true) {}", 100)).outcome).toMatchObject({ ok: false, error: expect.stringContaining("CPU budget of 100 ms") });
    expect((await stopped("async function spin() { while (true) await null; }\nreturn spin();", 100)).outcome).toMatchObject({
      ok: false,
      error: expect.stringContaining("CPU budget of 100 ms"),
    });
    const fine = await stopped("let n = 0;\nfor (let i = 0; i < 1000; i++) n += i;\nreturn n;", 200);
    expect(fine.outcome).toMatchObject({ ok: true, value: 499500 });
  });
});
