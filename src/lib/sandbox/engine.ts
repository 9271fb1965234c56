import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import meteredModule from "./metered/quickjs.wasm";

const PAGE = 64 * 1024;
/** What the build starts with (its INITIAL_MEMORY). */
const INITIAL_PAGES = (16 * 1024 * 1024) / PAGE;

export interface Engine {
  quickjs: QuickJSWASMModule;
  memory: WebAssembly.Memory;
}

/** What the engine asks of the host while it runs (the run's `Budget`). */
export interface EngineHooks {
  /** Before the memory grows; false refuses (QuickJS then runs out of memory). */
  mayGrow(): boolean;
  /** The engine's gas counter, as soon as the engine exists (before any of it runs). */
  attach(gas: WebAssembly.Global): void;
  /** The gas ran out (`left` is zero or below): the next quantum, or a throw that stops the engine. */
  refill(left: number): number;
}

/**
 * A new instance of the QuickJS engine with its own memory of at most `maxBytes`. The build is
 * QuickJS's release build with gas metering (scripts/meter-quickjs.mjs writes it on `npm install`),
 * bundled as a compiled module: Workers cannot compile WebAssembly from bytes at run time. Every
 * run gets one (about 2 ms): nothing of an earlier run, not even freed memory, is reachable from
 * the next, a run that broke the engine (a trap, the host's stack, a stop in the middle of a
 * built-in) leaves nothing behind, and the memory a large run grew to is given back when the
 * instance is dropped.
 */
export async function newEngine(maxBytes: number, hooks: EngineHooks): Promise<Engine> {
  const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: Math.max(INITIAL_PAGES, Math.ceil(maxBytes / PAGE)) });
  const grow = memory.grow.bind(memory);
  Object.defineProperty(memory, "grow", {
    value: (pages: number) => {
      if (!hooks.mayGrow()) throw new RangeError("The sandbox may not grow now.");
      return grow(pages);
    },
  });
  const quickjs = await newQuickJSWASMModuleFromVariant(
    newVariant(variant, {
      wasmMemory: memory,
      emscriptenModule: {
        // Emscripten's own imports plus the gas's: `gas.exhausted(left)` answers the next quantum.
        instantiateWasm: async (imports, onSuccess) => {
          const instance = await WebAssembly.instantiate(meteredModule, { ...imports, gas: { exhausted: (left: number) => hooks.refill(left) } });
          hooks.attach(instance.exports.gas as WebAssembly.Global);
          onSuccess(instance);
          return instance.exports;
        },
      },
    }),
  );
  return { quickjs, memory };
}
