#!/usr/bin/env node
// The code step's engine with and without gas metering (scripts/meter-quickjs.mjs), in Node: the
// CPU time (process.cpuUsage, less moved by other load on the machine than the wall clock) of a few
// programs on QuickJS's release build and on the metered build, each build in turn per repetition,
// the median of BENCH_SANDBOX_REPS (7), and the work units the metered build counted per
// millisecond, which is what WORK_UNITS_PER_MS in src/lib/sandbox/budget.ts is calibrated from.
// Run `npm install` first (it writes the metered build).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";

const require = createRequire(import.meta.url);
const REPS = Number(process.env.BENCH_SANDBOX_REPS ?? 7);
const builds = {
  plain: new WebAssembly.Module(readFileSync(require.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"))),
  metered: new WebAssembly.Module(readFileSync(new URL("../src/lib/sandbox/metered/quickjs.wasm", import.meta.url))),
};
const PROGRAMS = {
  "plain loop": "let n = 0; for (let i = 0; i < 3e6; i++) n += i; return n;",
  "small step":
    "const lines = [{ qty: 2, price: 5 }, { qty: 1, price: 7.5 }]; return { total: lines.reduce((s, l) => s + l.qty * l.price, 0), text: JSON.stringify(lines) };",
  objects: "const a = []; for (let i = 0; i < 1e5; i++) a.push({ i, s: 'v' + i }); return a.filter((x) => x.i % 3).map((x) => x.s).join(',').length;",
  indexOf: "const s = 'x'.repeat(3e6); let k = 0; for (let i = 0; i < 20; i++) k += s.indexOf('y'); return k;",
  split: "const s = 'x,'.repeat(5e5); let k = 0; for (let i = 0; i < 4; i++) k += s.split(',').length; return k;",
  stringify: "const a = Array.from({ length: 5e4 }, (_, i) => ({ i, s: 'v' + i })); return JSON.stringify(a).length;",
  sort: "const a = Array.from({ length: 1e5 }, (_, i) => (i * 7919) % 100003); a.sort(); return a[5];",
  regex: "const s = 'ab'.repeat(1e5); let k = 0; for (let i = 0; i < 10; i++) k += s.replace(/a(b)/g, 'x$1').length; return k;",
};

/** A fresh engine of `name`, with the gas it has counted (an endless supply: nothing is stopped). */
async function engine(name) {
  const meter = { spent: 0, granted: 0, gas: null, work: () => (meter.gas ? meter.spent + meter.granted - meter.gas.value : 0) };
  const memory = new WebAssembly.Memory({ initial: 256, maximum: 1536 });
  const options =
    name === "plain"
      ? { wasmMemory: memory, wasmModule: builds.plain }
      : {
          wasmMemory: memory,
          emscriptenModule: {
            instantiateWasm: async (imports, onSuccess) => {
              const exhausted = (left) => {
                meter.spent += meter.granted - left;
                meter.granted = 1 << 30;
                return meter.granted;
              };
              const instance = await WebAssembly.instantiate(builds.metered, { ...imports, gas: { exhausted } });
              meter.gas = instance.exports.gas;
              onSuccess(instance);
              return instance.exports;
            },
          },
        };
  return { quickjs: await newQuickJSWASMModuleFromVariant(newVariant(variant, options)), meter };
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];

const engines = { plain: await engine("plain"), metered: await engine("metered") };
const times = {};
const units = {};
const record = (key, ms) => {
  times[key] = [...(times[key] ?? []), ms];
};
for (let rep = 0; rep < REPS; rep++) {
  for (const [program, code] of Object.entries(PROGRAMS)) {
    for (const [name, { quickjs, meter }] of Object.entries(engines)) {
      const runtime = quickjs.newRuntime();
      runtime.setMemoryLimit(256 * 1024 * 1024);
      const vm = runtime.newContext();
      const workBefore = meter.work();
      const started = cpuMs();
      const result = vm.evalCode(`(function () { ${code} })()`);
      const took = cpuMs() - started;
      if (result.error) throw new Error(`${program} failed: ${JSON.stringify(vm.dump(result.error))}`);
      result.value.dispose();
      vm.dispose();
      runtime.dispose();
      record(`${program}/${name}`, took);
      if (name === "metered") units[program] = meter.work() - workBefore;
    }
  }
  // A whole run's engine as the code step makes one: instance, runtime, context, `return 1`.
  for (const name of Object.keys(engines)) {
    const started = cpuMs();
    for (let i = 0; i < 20; i++) {
      const { quickjs } = await engine(name);
      const runtime = quickjs.newRuntime();
      const vm = runtime.newContext();
      vm.evalCode("1").value?.dispose();
      vm.dispose();
      runtime.dispose();
    }
    record(`fresh engine/${name}`, (cpuMs() - started) / 20);
  }
}

console.log(`CPU ms, median of ${REPS}: QuickJS release build | metered build (overhead, work units per ms)`);
for (const program of [...Object.keys(PROGRAMS), "fresh engine"]) {
  const plain = median(times[`${program}/plain`]);
  const metered = median(times[`${program}/metered`]);
  const rate = units[program] ? `, ${Math.round(units[program] / metered).toLocaleString("en-US")} units/ms` : "";
  console.log(
    `${program.padEnd(13)} ${plain.toFixed(2).padStart(8)} | ${metered.toFixed(2).padStart(8)} (${((metered / plain - 1) * 100).toFixed(0)} %${rate})`,
  );
}
