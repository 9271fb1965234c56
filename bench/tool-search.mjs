#!/usr/bin/env node
// Tool choice at catalog scale (DESIGN §6.1), measured without a hub: the module of
// src/agent-loop/tools/ (loaded through tsx, as the Worker's bundler would compile it) over the
// 1,000-tool catalog of bench/fixtures/tool-catalog.json and the intents of
// bench/fixtures/tool-intents.json (a request, sometimes explained in one message and confirmed
// in the next, and the tool it should lead to). Prints:
//   - how often the intended tool is among the definitions of the turn's first model request;
//   - how often search_tools, asked with the intent's words, returns it first (and in its top 5);
//   - the time to build the index of the 1,000 tools, and to rank once.
// Targets: ≥ 95 % for both shares. BENCH_VERBOSE=1 lists every miss.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";
import { median, percentile } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const TARGET = 0.95;
const BUILD_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);

const tools = await tsImport("../src/agent-loop/tools/index.ts", import.meta.url);
const catalog = JSON.parse(readFileSync(path.join(here, "fixtures/tool-catalog.json"), "utf8"));
const intents = JSON.parse(readFileSync(path.join(here, "fixtures/tool-intents.json"), "utf8"));

const names = new Set(catalog.map((tool) => tool.name));
const unknown = intents.filter((intent) => !names.has(intent.tool));
if (unknown.length) throw new Error(`intents name tools the catalog lacks: ${unknown.map((i) => i.tool).join(", ")}`);

function time(fn) {
  const started = performance.now();
  const value = fn();
  return { ms: performance.now() - started, value };
}

// The index: the first build (cold code paths), then repeated builds of the same catalog.
const first = time(() => tools.buildToolIndex(catalog));
const builds = [];
for (let i = 0; i < BUILD_ROUNDS; i++) builds.push(time(() => tools.buildToolIndex(catalog)).ms);
const fingerprints = [];
for (let i = 0; i < BUILD_ROUNDS; i++) fingerprints.push(time(() => tools.catalogFingerprint(catalog)).ms);
const index = first.value;

const offerTimes = [];
const searchTimes = [];
const misses = [];
const outcomes = [];
for (const intent of intents) {
  const history = intent.messages.map((m) => ({ role: m.role, content: m.content }));
  const userText = intent.messages
    .filter((m) => m.role === "user")
    .map((m) => m.content)
    .join(" ");
  const offer = time(() => tools.toolsForRequest({ catalog, index, conversation: tools.conversationSoFar(history), usedOrFound: [] }));
  offerTimes.push(offer.ms);
  const offered = offer.value.tools.some((t) => t.name === intent.tool);
  const search = time(() => tools.runSearchTools(index, { query: userText.slice(0, 500), limit: 5 }));
  searchTimes.push(search.ms);
  const found = search.value.ok ? search.value.result.tools.map((t) => t.name) : [];
  outcomes.push({ intent, offered, first: found[0] === intent.tool, top5: found.includes(intent.tool) });
  if (!offered || found[0] !== intent.tool) misses.push({ intent, offered, found });
}

const pct = (n, of) => `${((100 * n) / of).toFixed(1)} %`.padStart(8);
const verdict = (n, of) => (n / of >= TARGET ? "met" : "NOT met");
const twoMessages = intents.filter((i) => i.messages.length > 1).length;
console.log(`Tool choice over ${catalog.length} tools, ${intents.length} intents (${twoMessages} over several messages)`);
// "tuning": the intents the ranking was adjusted on; "held_out": written afterwards and never tuned for.
for (const [label, subset] of [
  ["all intents", outcomes],
  ["tuning set", outcomes.filter((o) => o.intent.set === "tuning")],
  ["held-out set", outcomes.filter((o) => o.intent.set === "held_out")],
]) {
  const n = subset.length;
  const offered = subset.filter((o) => o.offered).length;
  const first = subset.filter((o) => o.first).length;
  const top5 = subset.filter((o) => o.top5).length;
  console.log(`  ${label} (${n})`);
  console.log(`    intended tool offered in the first request ${pct(offered, n)}  (${offered}/${n}, target ≥ 95 %: ${verdict(offered, n)})`);
  console.log(`    search_tools returns it first              ${pct(first, n)}  (${first}/${n}, target ≥ 95 %: ${verdict(first, n)})`);
  console.log(`    search_tools returns it in its top 5       ${pct(top5, n)}  (${top5}/${n})`);
}
console.log(`Index of ${index.tools.size} tools`);
console.log(`  first build                                  ${first.ms.toFixed(1)} ms`);
console.log(
  `  build, ${BUILD_ROUNDS} rounds                              min ${Math.min(...builds).toFixed(1)} ms  median ${median(builds).toFixed(1)} ms  p95 ${percentile(builds, 0.95).toFixed(1)} ms`,
);
console.log(`  catalog fingerprint (every request)          median ${median(fingerprints).toFixed(2)} ms`);
console.log(`  offered set for one request                  median ${median(offerTimes).toFixed(2)} ms  p95 ${percentile(offerTimes, 0.95).toFixed(2)} ms`);
console.log(`  one search_tools call                        median ${median(searchTimes).toFixed(2)} ms  p95 ${percentile(searchTimes, 0.95).toFixed(2)} ms`);

if (misses.length && process.env.BENCH_VERBOSE) {
  console.log("Misses:");
  for (const { intent, offered, found } of misses) {
    console.log(`  #${intent.id} (${intent.set}) ${intent.tool}: offered ${offered ? "yes" : "no"}; search: ${found.slice(0, 3).join(", ") || "(nothing)"}`);
  }
}
