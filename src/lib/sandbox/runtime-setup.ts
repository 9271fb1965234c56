import type { QuickJSRuntime } from "quickjs-emscripten-core";
import type { Budget } from "./budget";
import { CODE_LIMITS } from "./limits";

/** Wasm memory beyond QuickJS's own allocations (its stack, static data, the allocator's slack). */
export const ENGINE_OVERHEAD_BYTES = 32 * 1024 * 1024;
/** QuickJS's own stack limit, below the host's: deep recursion fails inside the sandbox, not in the Worker. */
const MAX_STACK_BYTES = 256 * 1024;

/** The limits every sandbox runtime runs under: the memory cap, its own stack, the budget's interrupts. */
export function limitRuntime(runtime: QuickJSRuntime, budget: Budget): void {
  runtime.setMemoryLimit(CODE_LIMITS.memoryBytes);
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  runtime.setInterruptHandler(() => budget.poll());
}
