import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { utf8Length } from "../bytes";
import type { Budget } from "./budget";
import { notJson } from "./failures";
import { CODE_LIMITS } from "./limits";
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
 * cycle…), or past `maxResultBytes` (measured inside first, so a huge result is never copied out).
 */
export function resultOutOf(
  vm: QuickJSContext,
  helpers: QuickJSHandle,
  value: QuickJSHandle,
  keep: Keep,
  budget: Budget,
  code: string,
): { ok: true; json: string } | { ok: false; error: string } {
  const serialised = vm.callFunction(keep(vm.getProp(helpers, "json")), vm.undefined, value, keep(vm.newNumber(CODE_LIMITS.maxResultBytes)));
  if (serialised.error) return notJson(vm, keep(serialised.error), budget, code);
  const text = keep(serialised.value);
  if (vm.typeof(text) === "number") return { ok: false, error: tooLarge(vm.getNumber(text)) };
  const json = vm.getString(text);
  if (utf8Length(json) > CODE_LIMITS.maxResultBytes) return { ok: false, error: tooLarge(utf8Length(json)) };
  return { ok: true, json };
}
