import type { QuickJSHandle } from "quickjs-emscripten-core";
import { describe, expect, it, vi } from "vitest";
import { Budget } from "../../src/lib/sandbox/budget";
import { newEngine } from "../../src/lib/sandbox/engine";
import { resultOutOf } from "../../src/lib/sandbox/json-bridge";
import { CODE_LIMITS } from "../../src/lib/sandbox/limits";
import { runJavaScript } from "../../src/lib/sandbox/run-code";
import { ENGINE_OVERHEAD_BYTES, limitRuntime } from "../../src/lib/sandbox/runtime-setup";
import { SandboxText } from "../../src/lib/sandbox/sandbox-text";

/**
 * Everything the host takes out of the code step's sandbox is bounded by the host, whatever the
 * code did to the built-ins the prelude (which runs inside the sandbox) relies on.
 */

const LINE = CODE_LIMITS.maxLogLineChars;
const ERROR = CODE_LIMITS.maxErrorChars;

async function failed(code: string, cpuMs: number = CODE_LIMITS.maxCpuMs) {
  const outcome = await runJavaScript(code, {}, { cpuMs });
  expect(outcome.ok, JSON.stringify(outcome).slice(0, 300)).toBe(false);
  return (outcome as { error: string }).error;
}

describe("console lines", () => {
  it("are cut by the host, even when the code replaced String.prototype.slice", async () => {
    const outcome = await runJavaScript(
      `String.prototype.slice = () => "y".repeat(50000);
String.prototype.substring = String.prototype.substr = String.prototype.slice;
console.log("x".repeat(5000));
console.warn("a", "b".repeat(2000));
console.log("short");
return 1;`,
      {},
    );
    expect(outcome).toMatchObject({ ok: true, value: 1 });
    expect(outcome.logs).toEqual([`${"x".repeat(LINE)}…`, `warn: a ${"b".repeat(LINE - "warn: a ".length)}…`, "short"]);
  });

  it("keep 1,001 characters of each of 100 lines of a million, up to the total cap", async () => {
    const outcome = await runJavaScript('const s = "z".repeat(1e6);\nfor (let i = 0; i < 100; i++) console.log(s);\nreturn "done";', {}, { cpuMs: 2000 });
    expect(outcome).toMatchObject({ ok: true, value: "done" });
    for (const line of outcome.logs) expect(line).toBe(`${"z".repeat(LINE)}…`);
    const kept = Math.floor(CODE_LIMITS.maxLogChars / (LINE + 1));
    expect(outcome.logs).toHaveLength(kept);
    expect(outcome.droppedLogs).toBe(100 - kept);
  });
});

describe("errors", () => {
  it("bound what the code threw, whatever it was", async () => {
    const long = await failed('throw new Error("e".repeat(1e6));');
    expect(long).toBe(`Error: ${"e".repeat(ERROR - "Error: ".length)}… (line 1)`);

    const named = await failed('const error = new TypeError("bad");\nerror.name = "N".repeat(1e6);\nthrow error;');
    expect(named.length).toBe(ERROR + 1 + " (line 1)".length);
    // The stack is taken where the error was made.
    expect(named).toMatch(/^N+… \(line 1\)$/);

    // A stack of a million characters: only its start is read, enough for the line.
    const stacked = await failed('const error = new Error("short");\nerror.stack = "at code.js:3\\n" + "s".repeat(1e6);\nthrow error;');
    expect(stacked).toBe("Error: short (line 2)");

    expect(await failed('throw "s".repeat(1e6);')).toBe(`The code threw "${"s".repeat(200)}…".`);
    expect(await failed("throw 10n ** 20000n;")).toMatch(/^The code threw 1000+…n\.$/);
    expect((await failed('throw { big: "b".repeat(1e6) };')).length).toBeLessThan(300);
    expect(await failed('return Promise.reject("r".repeat(1e6));')).toBe(`The code threw "${"r".repeat(200)}…".`);
    expect(await failed("return Promise.reject(new RangeError('x'.repeat(1e6)));")).toMatch(/^RangeError: x+… \(line 1\)$/);
    expect(await failed("throw null;")).toBe("The code threw null.");
    expect(await failed("throw undefined;")).toBe("The code threw undefined.");
  });

  it("stay bounded when the code replaced the built-ins the prelude and errors use", async () => {
    const tampered = `String.prototype.slice = () => "y".repeat(50000);
JSON.stringify = () => "j".repeat(1e6);
String = function () { return "q".repeat(1e6); };
Error.prototype.toString = () => "t".repeat(1e6);
`;
    expect(await failed(`${tampered}throw new Error("m".repeat(1e6));`)).toBe(`Error: ${"m".repeat(ERROR - "Error: ".length)}… (line 5)`);
    expect(await failed(`${tampered}throw "s".repeat(1e6);`)).toBe(`The code threw "${"s".repeat(200)}…".`);
    expect((await failed(`${tampered}throw { a: 1 };`)).length).toBeLessThan(300);
  });

  it("read through getters are the code's work, held by its budget", async () => {
    expect(await failed('const error = new Error("x");\nObject.defineProperty(error, "message", { get() { for (;;) {} } });\nthrow error;', 100)).toBe(
      "The code ran past its CPU budget of 100 ms (cpu_ms, at most 2000).",
    );
  });
});

describe("the result", () => {
  it("is measured again by the host, which copies nothing past the limit, and must be a string", async () => {
    const budget = new Budget(CODE_LIMITS.maxCpuMs);
    const engine = await newEngine(CODE_LIMITS.memoryBytes + ENGINE_OVERHEAD_BYTES, budget);
    const runtime = engine.quickjs.newRuntime();
    limitRuntime(runtime, budget);
    const vm = runtime.newContext();
    const text = SandboxText.capture(vm);
    const handles: QuickJSHandle[] = [];
    const keep = (handle: QuickJSHandle) => {
      handles.push(handle);
      return handle;
    };
    // Helpers whose `json` ignores the limit it is given, as changed code could make it.
    const helpersAnswering = (body: string) => keep(vm.unwrapResult(vm.evalCode(`({ json: function (value, max) { ${body} } })`)));
    const getString = vi.spyOn(vm, "getString");
    try {
      const huge = resultOutOf(text, helpersAnswering('return "x".repeat(3 * 1024 * 1024);'), vm.undefined, keep, budget, "");
      expect(huge).toEqual({ ok: false, error: expect.stringMatching(/^The result is 3,072 KiB of JSON; a code step returns at most 1,024 KiB/) });
      expect(getString).not.toHaveBeenCalled();

      const notText = resultOutOf(text, helpersAnswering("return { toString() { return 'x'.repeat(5e6); } };"), vm.undefined, keep, budget, "");
      expect(notText).toEqual({ ok: false, error: "The result could not be turned into JSON." });
      expect(getString).not.toHaveBeenCalled();

      // Multi-byte text within the length but past the limit in UTF-8 is refused too.
      const wide = resultOutOf(text, helpersAnswering('return "é".repeat(600 * 1024);'), vm.undefined, keep, budget, "");
      expect(wide).toEqual({ ok: false, error: expect.stringMatching(/^The result is 1,200 KiB of JSON/) });

      expect(resultOutOf(text, helpersAnswering('return "[1,2]";'), vm.undefined, keep, budget, "")).toEqual({ ok: true, json: "[1,2]" });
    } finally {
      for (const handle of handles.reverse()) handle.dispose();
      text.dispose();
      vm.dispose();
      runtime.dispose();
    }
  });
});
