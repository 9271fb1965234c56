#!/usr/bin/env node
// Builds the code step's QuickJS engine with gas metering (src/lib/sandbox/budget.ts says why):
// a copy of @jitl/quickjs-wasmfile-release-sync's .wasm where every loop iteration, every entry
// into a function on a cycle of the call graph (recursion) and every 64 bytes of a memory.copy or
// memory.fill cost one unit, taken from a mutable global `gas` (exported, so that the host can
// read it). When it drops below zero the engine calls the host's `gas.exhausted(left)`, which
// answers the next quantum or throws to stop the run. Nothing else of the module changes.
//
// Runs on `npm install` (postinstall) and before `npm test`, `npm start` and `npm run deploy`; it
// rebuilds only when the engine or this script changed. The output is not committed (.gitignore).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "package.json"));
const source = require.resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
const outDir = path.join(root, "src", "lib", "sandbox", "metered");
const output = path.join(outDir, "quickjs.wasm");
const stampFile = path.join(outDir, "quickjs.stamp");

/** What one unit of gas stands for in copied or filled bytes: memory.copy is one instruction however long. */
const BYTES_PER_UNIT_SHIFT = 6;

const input = readFileSync(source);
const stamp = createHash("sha256")
  .update(input)
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .digest("hex");
if (existsSync(output) && existsSync(stampFile) && readFileSync(stampFile, "utf8").trim() === stamp) process.exit(0);

let binaryen;
try {
  binaryen = (await import("binaryen")).default;
} catch {
  console.error("meter-quickjs: the `binaryen` package is missing: run `npm install` (it is a devDependency).");
  process.exit(1);
}

const started = Date.now();
const module = binaryen.readBinary(input);
// What emscripten's release build uses (sign extension, bulk memory, non-trapping conversions);
// validation below says so if a new build of the engine needs more.
const { Features } = binaryen;
module.setFeatures(Features.MutableGlobals | Features.SignExt | Features.BulkMemory | Features.BulkMemoryOpt | Features.NontrappingFPToInt);

const GAS = "gas";
const EXHAUSTED = "gas_exhausted";
const CHARGE_BYTES = "gas_charge_bytes";
const { i32 } = binaryen;
module.addGlobal(GAS, i32, true, module.i32.const(0));
module.addGlobalExport(GAS, "gas");
module.addFunctionImport(EXHAUSTED, "gas", "exhausted", i32, i32);

/** Takes `units` (an i32 expression) from the gas and asks the host when it runs out. */
const charge = (units) => [
  module.global.set(GAS, module.i32.sub(module.global.get(GAS, i32), units)),
  module.if(
    module.i32.lt_s(module.global.get(GAS, i32), module.i32.const(0)),
    module.global.set(GAS, module.call(EXHAUSTED, [module.global.get(GAS, i32)], i32)),
  ),
];

// memory.copy's and memory.fill's size goes through this function, which charges it and answers it.
module.addFunction(
  CHARGE_BYTES,
  i32,
  i32,
  [],
  module.block(null, [...charge(module.i32.shr_u(module.local.get(0, i32), module.i32.const(BYTES_PER_UNIT_SHIFT))), module.local.get(0, i32)], i32),
);

const ids = binaryen;
/** The child expressions of each kind of expression the engine holds; any other kind stops the build. */
const CHILDREN = new Map([
  [ids.NopId, []],
  [ids.BlockId, ["children"]],
  [ids.IfId, ["condition", "ifTrue", "ifFalse"]],
  [ids.LoopId, ["body"]],
  [ids.BreakId, ["condition", "value"]],
  [ids.SwitchId, ["condition", "value"]],
  [ids.CallId, ["operands"]],
  [ids.CallIndirectId, ["target", "operands"]],
  [ids.LocalGetId, []],
  [ids.LocalSetId, ["value"]],
  [ids.GlobalGetId, []],
  [ids.GlobalSetId, ["value"]],
  [ids.LoadId, ["ptr"]],
  [ids.StoreId, ["ptr", "value"]],
  [ids.ConstId, []],
  [ids.UnaryId, ["value"]],
  [ids.BinaryId, ["left", "right"]],
  [ids.SelectId, ["ifTrue", "ifFalse", "condition"]],
  [ids.DropId, ["value"]],
  [ids.ReturnId, ["value"]],
  [ids.MemorySizeId, []],
  [ids.MemoryGrowId, ["delta"]],
  [ids.UnreachableId, []],
  [ids.MemoryCopyId, ["dest", "source", "size"]],
  [ids.MemoryFillId, ["dest", "value", "size"]],
  [ids.SIMDExtractId, ["vec"]],
  [ids.SIMDReplaceId, ["vec", "value"]],
  [ids.SIMDShuffleId, ["left", "right"]],
  [ids.SIMDTernaryId, ["a", "b", "c"]],
  [ids.SIMDShiftId, ["vec", "shift"]],
  [ids.SIMDLoadId, ["ptr"]],
  [ids.SIMDLoadStoreLaneId, ["ptr", "vec"]],
]);

/** The kind of `expression` and its child expressions. */
function childrenOf(expression) {
  const id = binaryen.getExpressionId(expression);
  const fields = CHILDREN.get(id);
  if (!fields) throw new Error(`meter-quickjs: an expression of kind ${id} that this script does not know; teach it (CHILDREN).`);
  // Leaves (unreachable among them, which has no reader) need no more than their kind.
  if (fields.length === 0) return { info: { id }, children: [] };
  const info = binaryen.getExpressionInfo(expression);
  const children = [];
  for (const field of fields) {
    const value = info[field];
    if (Array.isArray(value)) children.push(...value);
    else if (value) children.push(value);
  }
  return { info, children };
}

// First the call graph: which functions call which (an indirect call may reach any function of the
// table with its signature), and each function's loops and bulk memory operations.
const functions = [];
const byName = new Map();
for (let i = 0; i < module.getNumFunctions(); i++) {
  const ref = module.getFunctionByIndex(i);
  const info = binaryen.getFunctionInfo(ref);
  if (info.module || info.name === CHARGE_BYTES) continue;
  const fn = { ref, name: info.name, signature: `${info.params}:${info.results}`, calls: new Set(), indirect: new Set(), loops: [], bulk: [] };
  functions.push(fn);
  byName.set(fn.name, fn);
  // An explicit stack: emscripten's switch lowering nests blocks thousands deep.
  const stack = [info.body];
  while (stack.length) {
    const expression = stack.pop();
    const { info: node, children } = childrenOf(expression);
    stack.push(...children);
    if (node.id === ids.CallId) fn.calls.add(node.target);
    else if (node.id === ids.CallIndirectId) fn.indirect.add(`${node.params}:${node.results}`);
    else if (node.id === ids.LoopId) fn.loops.push(expression);
    else if (node.id === ids.MemoryCopyId || node.id === ids.MemoryFillId) fn.bulk.push(expression);
  }
}
const table = [];
for (let i = 0; i < module.getNumElementSegments(); i++) table.push(...binaryen.getElementSegmentInfo(module.getElementSegmentByIndex(i)).data);
const tableBySignature = new Map();
for (const name of new Set(table)) {
  const fn = byName.get(name);
  if (fn) tableBySignature.set(fn.signature, [...(tableBySignature.get(fn.signature) ?? []), fn]);
}
const calleesOf = (fn) => [
  ...[...fn.calls].map((name) => byName.get(name)).filter(Boolean),
  ...[...fn.indirect].flatMap((signature) => tableBySignature.get(signature) ?? []),
];

const recursive = recursiveFunctions(functions, calleesOf);
let loops = 0;
let entries = 0;
let bulk = 0;
for (const fn of functions) {
  for (const loop of fn.loops) {
    // A branch to the loop's label lands at its start: each iteration pays.
    const body = binaryen.Loop.getBody(loop);
    binaryen.Loop.setBody(loop, module.block(null, [...charge(module.i32.const(1)), body], binaryen.getExpressionType(body)));
    loops++;
  }
  for (const operation of fn.bulk) {
    const kind = binaryen.getExpressionId(operation) === ids.MemoryCopyId ? binaryen.MemoryCopy : binaryen.MemoryFill;
    kind.setSize(operation, module.call(CHARGE_BYTES, [kind.getSize(operation)], i32));
    bulk++;
  }
  // Outside loops, the only way to do unbounded work is recursion (QuickJS's interpreter calling
  // built-ins calling the interpreter, a recursive regex matcher): the functions on a cycle of the
  // call graph pay on entry. Any other call does a bounded amount of work, charged to its caller.
  if (recursive.has(fn)) {
    const body = binaryen.Function.getBody(fn.ref);
    binaryen.Function.setBody(fn.ref, module.block(null, [...charge(module.i32.const(1)), body], binaryen.getExpressionType(body)));
    entries++;
  }
}

if (!module.validate()) {
  console.error("meter-quickjs: the metered module does not validate (a new engine build using other WebAssembly features?).");
  process.exit(1);
}
const metered = module.emitBinary();
module.dispose();
mkdirSync(outDir, { recursive: true });
// Written whole or not at all: a run stopped half-way leaves the old file and no stamp for it.
writeFileSync(`${output}.tmp`, metered);
renameSync(`${output}.tmp`, output);
writeFileSync(stampFile, `${stamp}\n`);
console.log(
  `meter-quickjs: ${path.relative(root, output)} (${loops} loops, ${entries} function entries, ${bulk} bulk memory operations metered; ${Date.now() - started} ms)`,
);

/** The functions on a cycle of the call graph (Tarjan's strongly connected components, without recursion). */
function recursiveFunctions(nodes, calleesOf) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const found = new Set();
  let next = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work = [{ node: root, callees: calleesOf(root), at: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work.at(-1);
      if (frame.at < frame.callees.length) {
        const callee = frame.callees[frame.at++];
        if (!index.has(callee)) {
          index.set(callee, next);
          low.set(callee, next++);
          stack.push(callee);
          onStack.add(callee);
          work.push({ node: callee, callees: calleesOf(callee), at: 0 });
        } else if (onStack.has(callee)) low.set(frame.node, Math.min(low.get(frame.node), index.get(callee)));
        continue;
      }
      work.pop();
      if (work.length) low.set(work.at(-1).node, Math.min(low.get(work.at(-1).node), low.get(frame.node)));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const selfCall = frame.callees.includes(frame.node);
      if (component.length > 1 || selfCall) for (const fn of component) found.add(fn);
    }
  }
  return found;
}
