import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { describeBytes } from "../bytes";
import type { Budget } from "./budget";
import { CODE_LIMITS } from "./limits";

/** What the code threw (or the sandbox stopped it for), as a sentence with the code's line number. */
export function failure(vm: QuickJSContext, error: QuickJSHandle, budget: Budget, code: string): { ok: false; error: string } {
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
export function notJson(vm: QuickJSContext, error: QuickJSHandle, budget: Budget, code: string): { ok: false; error: string } {
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

export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
