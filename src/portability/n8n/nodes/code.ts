import { codeInput, codeNodeBody } from "../code-runtime";
import { nodesNamedIn } from "../expressions";
import { resultOf } from "../items";
import type { Item, NodeContext, NodeResult } from "../types";

/**
 * Code (JavaScript), and the older Function / Function Item nodes → a `code` step that runs the
 * node's code as n8n would, with `$json`, `$input`, `items`, `$('Node')` and `$now` rebuilt from
 * the step's input; its result is the first item the code returned. Python is not taken over.
 */
export function codeNode(ctx: NodeContext): NodeResult | null {
  const p = ctx.node.parameters ?? {};
  const language = String(p.language ?? "javaScript");
  if (language !== "javaScript") {
    ctx.warn(`${language} code is not taken over: the hub's code steps run JavaScript.`);
    return null;
  }
  let js = String(p.jsCode ?? p.functionCode ?? "return $input.all();");
  // Function Item ran once per item with the item's json as `item`.
  if (ctx.node.type.endsWith(".functionItem")) js = `const item = $json;\n${js.replace(/return\s+item\s*;?\s*$/m, "return { json: item };")}`;
  return {
    steps: [{ id: ctx.stepId, type: "code", name: ctx.node.name, code: codeNodeBody(js), input: codeInputFor(ctx, js) }],
    output: [resultOf(ctx.stepId)],
  };
}

/** The code step input for JavaScript of this node: `$json`, and the nodes it names that ran before it. */
export function codeInputFor(ctx: NodeContext, js: string) {
  const nodes: Record<string, Item> = {};
  for (const name of nodesNamedIn(js)) {
    const item = ctx.outputOf(name);
    if (item) nodes[name] = item;
    else ctx.warn(`Its code reads node "${name}", which the hub does not run before it.`);
  }
  return codeInput(ctx.input, nodes, ctx.workflow);
}
