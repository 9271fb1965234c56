import variant from "@jitl/quickjs-wasmfile-release-sync";
import wasmModule from "@jitl/quickjs-wasmfile-release-sync/wasm";
import { type QuickJSContext, newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";

const PAGE = 64 * 1024;
/** What the build starts with (its INITIAL_MEMORY). */
const INITIAL_PAGES = (16 * 1024 * 1024) / PAGE;

export interface Engine {
  quickjs: QuickJSWASMModule;
  memory: WebAssembly.Memory;
}

/**
 * A new instance of the QuickJS engine (the release build, its .wasm bundled as a compiled module:
 * Workers cannot compile WebAssembly from bytes at run time) with its own memory of at most
 * `maxBytes`. Every run gets one (about 2 ms): nothing of an earlier run, not even freed memory,
 * is reachable from the next, a run that broke the engine (a trap, the host's stack) leaves
 * nothing behind, and the memory a large run grew to is given back when the instance is dropped.
 * `onGrow` is asked before the memory grows; false refuses (QuickJS then runs out of memory).
 */
export async function newEngine(maxBytes: number, onGrow: () => boolean = () => true): Promise<Engine> {
  const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: Math.max(INITIAL_PAGES, Math.ceil(maxBytes / PAGE)) });
  const grow = memory.grow.bind(memory);
  Object.defineProperty(memory, "grow", {
    value: (pages: number) => {
      if (!onGrow()) throw new RangeError("The sandbox may not grow now.");
      return grow(pages);
    },
  });
  const quickjs = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule, wasmMemory: memory }));
  return { quickjs, memory };
}

/** The address of a context's JSContext in the engine's memory (library boundary: the field is not public). */
export function contextAddress(context: QuickJSContext): number {
  return (context as any).ctx.value as number;
}
