import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { CODE_LIMITS } from "./limits";

/**
 * The host's side of the sandbox's console: the prelude's console.log and friends send each
 * line (already shown and bounded there) to `emit`; the first `maxLogLines` are kept, the rest
 * only counted, so a chatty loop cannot grow the step record.
 */
export class ConsoleLines {
  readonly lines: string[] = [];
  dropped = 0;

  /** The `emit` function handed to the prelude; the caller disposes of it. */
  emitter(vm: QuickJSContext): QuickJSHandle {
    return vm.newFunction("emit", (line) => {
      if (this.lines.length < CODE_LIMITS.maxLogLines) this.lines.push(vm.getString(line));
      else this.dropped++;
    });
  }
}
