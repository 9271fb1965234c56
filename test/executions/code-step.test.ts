import { describe, expect, it, vi } from "vitest";
import { runJavaScript } from "../../src/lib/sandbox/run-code";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { execute, killRunnerAndSweep, newWorkflow, settled, stepRunning } from "../helpers/runs";

const code = (id: string, body: string, more: Record<string, unknown> = {}) => ({ id, type: "code", code: body, ...more });
const stepOf = (execution: any, id: string) => execution.steps.find((s: any) => s.step_id === id);

/** Runs a workflow of `steps` with `input` to its end and answers the execution with its steps. */
async function run(steps: unknown[], input: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const { key } = await newApiKey(await newUser());
  const workflow = await newWorkflow(key, { steps, ...extra });
  return settled(key, await execute(key, workflow.id, input), 30_000);
}

/** The error a lone code step fails with. */
async function failureOf(body: string, more: Record<string, unknown> = {}) {
  const execution = await run([code("c", body, more)]);
  expect(execution.status).toBe("failed");
  expect(execution.failed_step_id).toBe("c");
  return stepOf(execution, "c").error_message as string;
}

describe("code steps", () => {
  it("transforms an earlier step's result; the next steps read what it returned", async () => {
    const execution = await run(
      [
        { id: "order", type: "set", values: { lines: "{{input.lines}}", currency: "EUR" } },
        code(
          "totals",
          `const { lines } = input.steps.order.result;
const total = lines.reduce((sum, line) => sum + line.qty * line.price, 0);
return { total, count: lines.length, currency: input.variables.currency, customer: input.input.customer };`,
        ),
        { id: "summary", type: "set", values: { text: "{{steps.totals.result.count}} lines, {{steps.totals.result.total}} {{currency}}" } },
      ],
      {
        customer: "ada",
        lines: [
          { qty: 2, price: 5 },
          { qty: 1, price: 7.5 },
        ],
      },
    );
    expect(execution.status).toBe("succeeded");
    expect(stepOf(execution, "totals")).toMatchObject({
      status: "succeeded",
      attempts: 1,
      result: { total: 17.5, count: 2, currency: "EUR", customer: "ada" },
      logs: [],
    });
    expect(stepOf(execution, "summary").result).toEqual({ text: "2 lines, 17.5 EUR" });
  });

  it("gets its own `input` after substitution, and `await`s plain values and promises", async () => {
    const execution = await run(
      [
        code("c", "const n = await input.n; const doubled = await Promise.resolve(n * 2); return [input.name, doubled];", {
          input: { n: "{{input.n}}", name: "x{{input.n}}" },
        }),
      ],
      {
        n: 21,
      },
    );
    expect(stepOf(execution, "c").result).toEqual(["x21", 42]);
  });

  it("by default gets {input, steps, variables}, the variables without the run's input repeated", async () => {
    const execution = await run(
      [{ id: "pick", type: "set", values: { chosen: "blue" } }, code("c", "return input;")],
      { color: "red", extra: 1 },
      { variables: { color: "green", size: "M" } },
    );
    const input = stepOf(execution, "c").result;
    expect(input.input).toEqual({ color: "red", extra: 1 });
    expect(input.steps.pick).toEqual({ result: { chosen: "blue" }, status: "succeeded" });
    // As placeholders see them: the workflow's variables overlaid by the run's input, and set values.
    expect(input.variables).toEqual({ color: "red", size: "M", chosen: "blue" });
  });

  it("runs inside a for_each with the item among its variables", async () => {
    const execution = await run([{ id: "each", type: "for_each", items: [1, 2, 3], as: "n", steps: [code("square", "return input.variables.n ** 2;")] }]);
    expect(execution.status).toBe("succeeded");
    expect(stepOf(execution, "each").result.map((item: any) => item.square)).toEqual([1, 4, 9]);
  });

  it("keeps the first 100 console lines on the step's record, each bounded", async () => {
    const execution = await run([
      code(
        "c",
        `console.log("hello", { a: 1 }, [1, 2], undefined, null);
console.warn("careful");
console.error(new TypeError("bad"));
console.log("x".repeat(5000));
for (let i = 0; i < 200; i++) console.log("line", i);
return "done";`,
      ),
    ]);
    const record = stepOf(execution, "c");
    expect(record.result).toBe("done");
    expect(record.logs.slice(0, 3)).toEqual(['hello {"a":1} [1,2] undefined null', "warn: careful", "error: TypeError: bad"]);
    expect(record.logs[3]).toBe(`${"x".repeat(1000)}…`);
    // The first 100 lines, then one saying how many more there were.
    expect(record.logs).toHaveLength(101);
    expect(record.logs.at(-2)).toBe("line 95");
    expect(record.logs.at(-1)).toBe("(104 more lines not kept)");
  });

  it("fails the step with the error and its line number, keeping the lines logged before", async () => {
    const execution = await run([code("c", 'console.log("before");\nconst order = undefined;\nreturn order.total;')]);
    expect(execution.status).toBe("failed");
    const step = stepOf(execution, "c");
    expect(step.error_message).toBe("TypeError: cannot read property 'total' of undefined (line 3)");
    expect(step.result).toBeNull();
    expect(step.logs).toEqual(["before"]);
    expect(execution.error_message).toContain("TypeError: cannot read property 'total' of undefined (line 3)");
    expect(await failureOf('if (true) {\n  throw new Error("no stock");\n}')).toBe("Error: no stock (line 2)");
    expect(await failureOf('throw "plain"')).toBe('The code threw "plain".');
  });

  it("refuses a syntax error at save, naming the step's code field, and code over 64 KiB or a budget out of range", async () => {
    const { key } = await newApiKey(await newUser());
    const refused = await call("/v1/workflows", {
      token: key,
      json: {
        workflow_name: "Broken",
        description: "x",
        steps: [
          code("fine", "return 1;"),
          {
            id: "branch",
            type: "condition",
            condition: { field: "input.x", operator: "exists" },
            then: [code("broken", "const a = 1;\nreturn (a +;")],
            else: [],
          },
        ],
      },
    });
    const problem = await expectProblem(refused, 422, "validation_failed");
    expect(problem.errors).toEqual([expect.objectContaining({ field: "steps.1.then.0.code", message: expect.stringContaining("SyntaxError") })]);
    expect(problem.errors![0].message).toContain("(line 2)");

    const tooLong = await call("/v1/workflows", {
      token: key,
      json: { workflow_name: "Long", description: "x", steps: [code("c", `return 1;${" ".repeat(64 * 1024)}`)] },
    });
    expect((await expectProblem(tooLong, 422, "validation_failed")).errors![0].field).toBe("steps.0.code");
    for (const cpu_ms of [0, 2001, 1.5]) {
      const outOfRange = await call("/v1/workflows", {
        token: key,
        json: { workflow_name: "Budget", description: "x", steps: [code("c", "return 1;", { cpu_ms })] },
      });
      expect((await expectProblem(outOfRange, 422, "validation_failed")).errors![0].field).toBe("steps.0.cpu_ms");
    }
    // An update is checked the same way.
    const workflow = await newWorkflow(key, { steps: [code("c", "return 1;")] });
    const update = await call(`/v1/workflows/${workflow.id}`, { method: "PUT", token: key, json: { steps: [code("c", "return {;")] } });
    expect((await expectProblem(update, 422, "validation_failed")).errors![0].field).toBe("steps.0.code");
  });

  it("has no network, no modules and nothing of the hub: each attempt fails clearly", async () => {
    expect(await failureOf('return await fetch("https://example.com/");')).toMatch(/^TypeError: fetch is not available in a code step: it has no network/);
    expect(await failureOf('return await globalThis.fetch("http://127.0.0.1/");')).toMatch(/^TypeError: fetch is not available in a code step/);
    expect(await failureOf('const fs = require("fs");\nreturn fs;')).toMatch(/^TypeError: require is not available in a code step.*\(line 1\)$/);
    expect(await failureOf('const m = await import("node:fs");\nreturn 1;')).toMatch(/could not load module 'node:fs'/);
    // Nothing of the Worker is reachable: no bindings, timers, Node or Web APIs.
    const execution = await run([
      code(
        "c",
        "return [typeof env, typeof process, typeof setTimeout, typeof caches, typeof WebAssembly, typeof XMLHttpRequest, typeof Request, typeof crypto];",
      ),
    ]);
    expect(stepOf(execution, "c").result).toEqual(Array(8).fill("undefined"));
  });

  it("fails `while (true) {}` at its CPU budget", async () => {
    expect(await failureOf("while (true) {}")).toBe("The code ran past its CPU budget of 200 ms (cpu_ms, at most 2000).");
    expect(await failureOf("let i = 0;\nwhile (true) { i++; }", { cpu_ms: 50 })).toBe("The code ran past its CPU budget of 50 ms (cpu_ms, at most 2000).");
    // Long built-in calls in the loop do not stretch the budget, nor does an endless chain of promise jobs.
    expect(await failureOf('while (true) { "x".repeat(100000).split(""); }')).toContain("CPU budget of 200 ms");
    expect(await failureOf("async function spin() { while (true) await null; }\nreturn spin();")).toContain("CPU budget of 200 ms");
  });

  it("fails cleanly when the code runs out of memory, and the next run is whole", async () => {
    expect(await failureOf("const a = [];\nwhile (true) a.push(new Array(1e6).fill(1));", { cpu_ms: 2000 })).toBe(
      "The code ran out of memory (at most 64 MiB).",
    );
    expect(await failureOf("function deeper(n) { return deeper(n + 1) + 1; }\nreturn deeper(0);")).toMatch(/stack overflow \(line 1\)$/);
    const after = await run([code("c", "return Array.from({ length: 3 }, (_, i) => i);")]);
    expect(stepOf(after, "c").result).toEqual([0, 1, 2]);
  });

  it("fails a result that is not JSON, too large, or a promise that never settles, saying so", async () => {
    expect(await failureOf("return () => 1;")).toBe("The result is not JSON: it holds a function.");
    expect(await failureOf("return { ok: true, send() {} };")).toBe('The result is not JSON: it holds a function (at key "send").');
    expect(await failureOf("const a = { name: 'a' };\na.self = a;\nreturn a;")).toBe("The result is not JSON: circular reference.");
    expect(await failureOf("return 10n;")).toMatch(/^The result is not JSON: .*BigInt/);
    expect(await failureOf('return "x".repeat(2 * 1024 * 1024);')).toBe(
      "The result is 2,049 KiB of JSON; a code step returns at most 1,024 KiB. Return only what the next steps need.",
    );
    expect(await failureOf('return "x".repeat(300 * 1024);')).toContain("larger than the 256 KiB a step's result may hold");
    expect(await failureOf("return await new Promise(() => {});")).toContain("a promise that never settles");
    // Nothing returned is null.
    const execution = await run([code("c", "const x = 1;")]);
    expect(stepOf(execution, "c").result).toBeNull();
  });

  it("refuses an input larger than 1 MiB of JSON", async () => {
    const big = "x".repeat(600 * 1024);
    const produce = (id: string) => code(id, "return 'y'.repeat(230 * 1024);");
    // By default the input holds the run's input and the results before: 600 KiB + 2 × 230 KiB.
    const execution = await run([produce("p1"), produce("p2"), code("c", "return input.input.big.length;")], { big });
    expect(stepOf(execution, "c").error_message).toBe(
      "The input is 1,061 KiB of JSON; a code step takes at most 1,024 KiB. Pass only what the code needs with the step's `input`.",
    );
    // Given only what it needs, the same step runs.
    const fits = await run([produce("p1"), produce("p2"), code("c", "return input.length;", { input: "{{input.big}}" })], { big });
    expect(stepOf(fits, "c").result).toBe(big.length);
  });

  it("shares nothing between runs: each gets a fresh context", async () => {
    const execution = await run([
      code("first", "globalThis.shared = 'left behind'; Object.prototype.polluted = true; Array.prototype.push = null; return 1;"),
      code("second", "return [typeof shared, ({}).polluted === undefined, typeof [].push];"),
    ]);
    expect(stepOf(execution, "second").result).toEqual(["undefined", true, "function"]);
    const other = await run([code("again", "return typeof globalThis.shared;")]);
    expect(stepOf(other, "again").result).toBe("undefined");
  });

  it("is tried again under its retry policy, each attempt on a fresh context", async () => {
    const execution = await run([code("c", "throw new Error('always');", { retry: { max_attempts: 2, delay_seconds: 0 } })]);
    expect(execution.status).toBe("failed");
    expect(stepOf(execution, "c")).toMatchObject({ status: "failed", attempts: 2, error_message: "Error: always (line 1)" });
  });

  it("is replayed from its record after a crash, never run again", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [
        code("draw", "return Math.random();"),
        { id: "slow", type: "tool", tool: "wait", arguments: { seconds: 3 } },
        code("check", "return input.steps.draw.result;"),
      ],
    });
    const id = await execute(key, workflow.id);
    await stepRunning(id, "slow");
    await killRunnerAndSweep(id);
    const execution = await settled(key, id, 30_000);
    expect(execution.status).toBe("succeeded");
    const draw = stepOf(execution, "draw");
    expect(draw.attempts).toBe(1);
    expect(stepOf(execution, "check").result).toBe(draw.result);
  }, 40_000);

  it("holds the budget where the clock stands still while code runs (as on Cloudflare), counting the engine's work", async () => {
    const now = Date.now();
    const clock = vi.spyOn(Date, "now").mockReturnValue(now);
    const fine = vi.spyOn(performance, "now").mockReturnValue(0);
    try {
      expect(await runJavaScript("while (true) {}", {}, { cpuMs: 100 })).toMatchObject({
        ok: false,
        error: "The code ran past its CPU budget of 100 ms (cpu_ms, at most 2000).",
      });
      expect(await runJavaScript("let n = 0;\nfor (let i = 0; i < 1000; i++) n += i;\nreturn n;", {})).toMatchObject({ ok: true, value: 499500 });
    } finally {
      clock.mockRestore();
      fine.mockRestore();
    }
  });

  it("measures the sandbox's overhead per run (informative)", async () => {
    await runJavaScript("return 1", {});
    const started = performance.now();
    for (let i = 0; i < 100; i++) {
      const outcome = await runJavaScript("return 1", {});
      expect(outcome).toMatchObject({ ok: true, value: 1 });
    }
    console.log(
      `code step sandbox: ${((performance.now() - started) / 100).toFixed(2)} ms per run of \`return 1\` (fresh engine, runtime and context), over 100 runs`,
    );
  });
});

describe("the code step's result", () => {
  it("is shown on the execution's step record", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: [code("c", 'console.log("hi");\nreturn { ok: true };')] });
    const id = await execute(key, workflow.id);
    await settled(key, id);
    const execution = await json(await call(`/v1/executions/${id}`, { token: key }));
    expect(stepOf(execution, "c")).toMatchObject({ type: "code", status: "succeeded", result: { ok: true }, logs: ["hi"], error_message: null });
  });
});
