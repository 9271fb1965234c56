import type { Item } from "./types";

/**
 * What n8n's JavaScript sees, rebuilt in a hub code step from the step's `input`: `$json` (the
 * item the node reads), `$input`, `items`, `$('Node')`, `$node`, `$now`, `$today`, `$execution`,
 * `$workflow`. The hub runs one item at a time, so `all()` is that one item. `input.json` and
 * `input.nodes[name]` are lists of layers (see Layer) merged as n8n's item would be.
 */
const PRELUDE = `const __merge = (layers) => Object.assign({}, ...(layers ?? []).filter((v) => v && typeof v === "object" && !Array.isArray(v)));
const __node = (layers) => { const item = { json: __merge(layers), binary: {} }; return { item, first: () => item, last: () => item, all: () => [item], json: item.json, isExecuted: true }; };
const __text = (v) => (v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v));
const $input = __node(input.json);
const $json = $input.item.json;
const items = [$input.item];
const $ = (name) => { if (!input.nodes || !Object.hasOwn(input.nodes, name)) throw new Error("Node '" + name + "' has not run"); return __node(input.nodes[name]); };
const $node = new Proxy({}, { get: (_, name) => $(String(name)) });
const $now = Object.assign(new Date(input.now), { toISO: () => input.now, toMillis: () => Date.parse(input.now) });
const $today = Object.assign(new Date(input.now.slice(0, 10) + "T00:00:00.000Z"), { toISO: () => input.now.slice(0, 10) + "T00:00:00.000Z" });
const $execution = { id: input.execution_id, mode: "production" };
const $workflow = input.workflow;
`;

/** The first item of what n8n code returned, as n8n reads it: `[{json: {...}}]`, `[{...}]` or `{...}`. */
const FIRST_ITEM = `const __first = Array.isArray(__out) ? __out[0] : __out;
return __first && typeof __first === "object" && __first.json && typeof __first.json === "object" ? __first.json : (__first ?? {});
`;

/** The code step's `input`: the layers of `$json` and of each node the code names, as placeholders. */
export function codeInput(json: Item, nodes: Record<string, Item>, workflow: { id?: string; name?: string }) {
  const layers = (item: Item) => item.map(layerValue);
  return {
    json: layers(json),
    nodes: Object.fromEntries(Object.entries(nodes).map(([name, item]) => [name, layers(item)])),
    now: "{{execution.started_at}}",
    execution_id: "{{execution.id}}",
    workflow: { id: workflow.id ?? null, name: workflow.name ?? null, active: true },
  };
}

/** A layer as a value with placeholders: the object at its base, or its aliases. */
function layerValue(layer: Item[number]): unknown {
  if (!layer.aliases) return `{{${layer.base}}}`;
  return Object.fromEntries(
    Object.entries(layer.aliases)
      .filter((entry): entry is [string, string] => entry[1] !== null)
      .map(([key, path]) => [key, `{{${path}}}`]),
  );
}

/** An n8n Code node's JavaScript as the body of a hub code step: its result is the first item's json. */
export function codeNodeBody(jsCode: string): string {
  return `${PRELUDE}const __out = await (async () => {\n${jsCode}\n})();\n${FIRST_ITEM}`;
}

/** A code step that works out expressions a placeholder cannot express: its result is {e0: …, e1: …}. */
export function expressionsBody(expressions: string[]): string {
  return `${PRELUDE}return {\n${expressions.map((js, i) => `  e${i}: (${js}) ?? null,`).join("\n")}\n};\n`;
}
