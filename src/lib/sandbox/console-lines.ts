import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { type Budget, HOST_CALL_UNITS } from "./budget";
import { CODE_LIMITS } from "./limits";
import type { SandboxText } from "./sandbox-text";

/**
 * The host's side of the sandbox's console: the prelude's console.log and friends send each
 * line to `emit`, which keeps at most `maxLogLineChars` of it (and "…"), read through
 * `SandboxText` so that a huge line is never copied out; the first `maxLogLines`, up to
 * `maxLogChars` in all, are kept, the rest only counted, so a chatty loop cannot grow the step record
 * (nor outlast its budget: each call is charged as work).
 */
export class ConsoleLines {
  readonly lines: string[] = [];
  dropped = 0;
  private chars = 0;
  private full = false;

  /** The `emit` function handed to the prelude; the caller disposes of it. Each call is work charged to `budget`. */
  emitter(vm: QuickJSContext, text: SandboxText, budget: Pick<Budget, "charge">): QuickJSHandle {
    return vm.newFunction("emit", (line) => {
      budget.charge(HOST_CALL_UNITS);
      if (this.full || this.lines.length >= CODE_LIMITS.maxLogLines) {
        this.dropped++;
        return;
      }
      const kept = text.bounded(line, CODE_LIMITS.maxLogLineChars) ?? "[a line that is not text]";
      if (this.chars + kept.length > CODE_LIMITS.maxLogChars) {
        this.full = true;
        this.dropped++;
        return;
      }
      this.chars += kept.length;
      this.lines.push(kept);
    });
  }
}
