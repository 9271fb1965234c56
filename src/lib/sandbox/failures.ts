import type { QuickJSHandle } from "quickjs-emscripten-core";
import { describeBytes } from "../bytes";
import type { Budget } from "./budget";
import { CODE_LIMITS } from "./limits";
import type { SandboxText } from "./sandbox-text";

/** A thrown value that is not an Error is shown up to this many characters. */
const THROWN_VALUE_CHARS = 200;

/**
 * What the code threw (or the sandbox stopped it for), as a sentence with the code's line number.
 * Every text comes out of the sandbox through `SandboxText`, bounded on the host's side: the
 * sentence holds at most `maxErrorChars` of the name and message (and "…"), whatever was thrown.
 */
export function failure(text: SandboxText, error: QuickJSHandle, budget: Budget, code: string): { ok: false; error: string } {
  if (budget.reason) return { ok: false, error: budget.message() };
  const problem = describe(text, error, budget, code);
  // Reading the error can run the code's getters: their work counts, and may be what stopped it.
  return budget.reason ? { ok: false, error: budget.message() } : problem;
}

function describe(text: SandboxText, error: QuickJSHandle, budget: Budget, code: string): { ok: false; error: string } {
  const max = CODE_LIMITS.maxErrorChars;
  const thrown = errorOf(text, error, max);
  if (thrown) {
    if (thrown.name === "InternalError" && /out of memory/i.test(thrown.message)) {
      return { ok: false, error: `The code ran out of memory (at most ${describeBytes(CODE_LIMITS.memoryBytes)}).` };
    }
    if (thrown.name === "InternalError" && thrown.message === "interrupted") return { ok: false, error: budget.message() };
    const line = lineOf(thrown.stack, code);
    return { ok: false, error: `${cut(`${thrown.name}: ${thrown.message}`, max)}${line ? ` (line ${line})` : ""}` };
  }
  const described = text.vm.typeof(error) === "undefined" ? "undefined" : text.describe(error, THROWN_VALUE_CHARS);
  return { ok: false, error: `The code threw ${described ?? "a value that cannot be shown"}.` };
}

/** Why the returned value could not be turned into JSON (a function, a symbol, a cycle, a BigInt). */
export function notJson(text: SandboxText, error: QuickJSHandle, budget: Budget, code: string): { ok: false; error: string } {
  const problem = failure(text, error, budget, code);
  if (budget.reason || problem.error.startsWith("The code ran out")) return problem;
  const message = problem.error.replace(/^[A-Za-z]*Error: /, "").replace(/ \(line \d+\)$/, "");
  return { ok: false, error: `The result is not JSON: ${message}.` };
}

/** An Error (or any object with a string name and message), its texts read bounded; null for anything else. */
function errorOf(text: SandboxText, error: QuickJSHandle, max: number): { name: string; message: string; stack: string | null } | null {
  if (text.vm.typeof(error) !== "object") return null;
  const name = text.property(error, "name", max);
  if (name === null) return null;
  const message = text.property(error, "message", max);
  if (message === null) return null;
  // The innermost frames come first: the code's line is among the first characters.
  return { name, message, stack: text.property(error, "stack", max) };
}

/** The code's own line of the innermost frame in its source (the wrapper's first line is not the code's). */
function lineOf(stack: string | null, code: string): number | null {
  const match = stack?.match(/code\.js:(\d+)/);
  if (!match) return null;
  const line = Number(match[1]) - 1;
  const lines = code.split("\n").length;
  return line >= 1 && line <= lines ? line : line > lines ? lines : null;
}

/** `text` within `max` characters, "…" marking a cut. */
export const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** A host-side error's message (the engine's, not the code's), bounded like the code's errors. */
export const messageOf = (error: unknown) => cut(error instanceof Error ? error.message : String(error), CODE_LIMITS.maxErrorChars);
