import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { utf8Length } from "../bytes";
import type { Budget } from "./budget";
import { notJson } from "./failures";
import { CODE_LIMITS } from "./limits";
import type { SandboxText } from "./sandbox-text";
import { tooLarge } from "./sizes";

// The only way data crosses into and out of the sandbox: as JSON text, parsed and written by
// the prelude's own copies of JSON's functions (`helpers.parse`, `helpers.json`), so nothing of
// the host's objects is ever shared with the code.

/** Registers a handle to be disposed of when the run ends; answers it. */
type Keep = (handle: QuickJSHandle) => QuickJSHandle;

/** The input as a value inside the sandbox, or why it could not be made. */
export function inputInto(vm: QuickJSContext, helpers: QuickJSHandle, inputJson: string, keep: Keep) {
  return vm.callFunction(keep(vm.getProp(helpers, "parse")), vm.undefined, keep(vm.newString(inputJson)));
}

/**
 * The code's result as JSON text on the host, or why it cannot be: not JSON (a function, a
 * cycle…), or past `maxResultBytes`. The prelude measures it first (and answers the length of a
 * text too long), but code can change what runs there: the host checks again that it holds a
 * string, and its length through the handle before copying, so a huge result is never copied out.
 */
export function resultOutOf(
  text: SandboxText,
  helpers: QuickJSHandle,
  value: QuickJSHandle,
  keep: Keep,
  budget: Budget,
  code: string,
): { ok: true; json: string } | { ok: false; error: string } {
  const vm = text.vm;
  const serialised = vm.callFunction(keep(vm.getProp(helpers, "json")), vm.undefined, value, keep(vm.newNumber(CODE_LIMITS.maxResultBytes)));
  if (serialised.error) return notJson(text, keep(serialised.error), budget, code);
  const answer = keep(serialised.value);
  const length = text.lengthOf(answer);
  if (length === null) {
    const measured = vm.typeof(answer) === "number" ? vm.getNumber(answer) : Number.NaN;
    return { ok: false, error: measured > CODE_LIMITS.maxResultBytes ? tooLarge(measured) : "The result could not be turned into JSON." };
  }
  // Each UTF-16 unit is at least one byte of UTF-8: a longer text is too large before it is read.
  if (length > CODE_LIMITS.maxResultBytes) return { ok: false, error: tooLarge(length) };
  const json = vm.getString(answer);
  const bytes = utf8Length(json);
  return bytes > CODE_LIMITS.maxResultBytes ? { ok: false, error: tooLarge(bytes) } : { ok: true, json };
}
