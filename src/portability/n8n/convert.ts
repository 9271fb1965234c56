import { z } from "@hono/zod-openapi";
import { HubError } from "../../core/errors";
import type { Step } from "../../workflows/steps";
import { expressionsBody } from "./code-runtime";
import { translateValue } from "./expressions";
import { N8nGraph } from "./graph";
import { resolvePath } from "./items";
import { codeInputFor } from "./nodes/code";
import { TRIGGER_TYPES, converterOf } from "./nodes/index";
import type { ImportWarning, ImportedWorkflow, Item, N8nWorkflow, NodeContext, NodeResult } from "./types";

/** The most nodes one export may hold: far above any real workflow, and bounded work per request. */
export const MAX_N8N_NODES = 500;

const N8nWorkflowSchema = z.object({
  id: z.union([z.string(), z.number()]).transform(String).optional(),
  name: z.string().max(500).optional(),
  nodes: z
    .array(
      z.object({
        name: z.string().min(1).max(500),
        type: z.string().min(1).max(200),
        typeVersion: z.number().optional(),
        position: z.tuple([z.number(), z.number()]).optional(),
        parameters: z.record(z.string(), z.unknown()).optional(),
        disabled: z.boolean().optional(),
      }),
    )
    .max(MAX_N8N_NODES),
  connections: z.record(z.string(), z.unknown()).default({}),
  settings: z
    .object({ timezone: z.string().max(64).optional() })
    .passthrough()
    .optional(),
});

/** The workflow as `POST /v1/workflows` takes it. */
export interface ConvertedWorkflow {
  workflow_name: string;
  description: string;
  steps: Step[];
  trigger_type: string;
  trigger_config: Record<string, unknown>;
  workflow_metadata: Record<string, unknown>;
}

export interface Conversion {
  workflow: ConvertedWorkflow;
  warnings: ImportWarning[];
  /** The step whose result is the workflow's output (its last top-level step), for a caller's Execute Workflow node. */
  lastStepId?: string;
  /** The n8n workflow ids its Execute Workflow nodes call. */
  calls: string[];
}

export interface ConvertOptions {
  /** n8n workflows imported in the same call, by their n8n id. */
  imported?: Map<string, ImportedWorkflow>;
  /** Where the export sits in the request, for error fields ("n8n", "n8n.1"). */
  field?: string;
}

/** The n8n workflow ids an export's Execute Workflow nodes call (for importing callees first). */
export function calledWorkflowIds(raw: unknown): string[] {
  const nodes = (raw as { nodes?: { type?: string; parameters?: { workflowId?: unknown } }[] })?.nodes ?? [];
  return nodes
    .filter((node) => node?.type === "n8n-nodes-base.executeWorkflow")
    .map((node) => node.parameters?.workflowId)
    .map((id) => String(id && typeof id === "object" ? (id as { value?: unknown }).value : (id ?? "")))
    .filter(Boolean);
}

/**
 * An n8n workflow export → the hub workflow that does the same, and what could not be taken over.
 * Walks the `main` connections from the trigger: each node becomes its steps (nodes/), IF and
 * Switch outputs become condition branches, and nodes where branches meet again follow the
 * condition. 422 naming `n8n.nodes` when nothing could be taken over.
 */
export function convertN8n(raw: unknown, options: ConvertOptions = {}): Conversion {
  const field = options.field ?? "n8n";
  const parsed = N8nWorkflowSchema.safeParse(raw);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({ location: "body" as const, field: [field, ...issue.path].join("."), message: issue.message }));
    throw new HubError("validation_failed", "That is not an n8n workflow export (nodes and connections).", { errors });
  }
  const workflow = parsed.data as N8nWorkflow;
  const graph = new N8nGraph(workflow);
  const warnings: ImportWarning[] = [];
  const outputs = new Map<string, Item>();
  const placed = new Set<string>();
  const usedIds = new Set<string>();
  const stepIdOf = new Map<string, string>();
  let trigger: NodeResult["trigger"];

  const uniqueId = (wanted: string) => {
    let id = wanted;
    for (let n = 2; usedIds.has(id); n++) id = `${wanted}_${n}`;
    usedIds.add(id);
    return id;
  };
  for (const node of graph.all()) stepIdOf.set(node.name, uniqueId(slug(node.name)));

  const contextFor = (name: string, input: Item, expressions: string[]): { ctx: NodeContext; expressionStepId: () => string | undefined } => {
    const node = graph.node(name)!;
    const stepId = stepIdOf.get(name)!;
    let expressionStep: string | undefined;
    const warn = (reason: string) => warnings.push({ node: name, reason });
    const ctx: NodeContext = {
      node,
      stepId,
      input,
      outputOf: (other) => outputs.get(other),
      warn,
      value: (value) => translateValue(value, scope),
      computed: (js) => {
        expressionStep ??= uniqueId(`${stepId}_expr`.slice(0, 64));
        expressions.push(js);
        return `{{steps.${expressionStep}.result.e${expressions.length - 1}}}`;
      },
      extraId: (suffix) => uniqueId(`${stepId}_${suffix}`.slice(0, 64)),
      importedWorkflow: (id) => options.imported?.get(id),
      workflow: { id: workflow.id, name: workflow.name },
      timezone: workflow.settings?.timezone,
    };
    const scope = {
      path: (other: string | undefined, segments: string[]) => {
        const item = other === undefined ? input : outputs.get(other);
        if (!item) {
          warn(`It reads node "${other}", which the hub does not run before it.`);
          return null;
        }
        const path = resolvePath(item, segments);
        if (!path && item.some((layer) => layer.aliases && layer.aliases[segments[0] ?? ""] === null)) {
          warn(`The webhook's ${segments[0]} are not kept by the hub (a run's input is the request body): reading them gives nothing.`);
        }
        return path;
      },
      computed: (js: string) => ctx.computed(js),
    };
    return { ctx, expressionStepId: () => expressionStep };
  };

  /** A node and everything after it (up to `stop`), as steps. */
  const walkNode = (name: string, from: string | undefined, stop: Set<string>): Step[] => {
    if (stop.has(name) || placed.has(name)) return [];
    placed.add(name);
    const node = graph.node(name)!;
    const input = (from !== undefined ? outputs.get(from) : undefined) ?? [];
    const next = graph.outputs(name);
    if (node.disabled) {
      warnings.push({ node: name, reason: "It is disabled in n8n: left out." });
      outputs.set(name, input);
      return walkList(next[0] ?? [], name, stop);
    }
    const expressions: string[] = [];
    const { ctx, expressionStepId } = contextFor(name, input, expressions);
    const convert = converterOf(node.type);
    if (!convert) ctx.warn(`${node.type} has no hub equivalent: left out.`);
    const result = convert ? convert(ctx) : null;
    if (result?.trigger) {
      if (trigger) ctx.warn("A hub workflow has one trigger: this one is left out, and the nodes after it run after the first trigger's.");
      else trigger = result.trigger;
    }
    outputs.set(name, result?.output ?? input);
    const exprId = expressionStepId();
    const before: Step[] = exprId
      ? [{ id: exprId, type: "code", name: `${node.name} (expressions)`, code: expressionsBody(expressions), input: codeInputFor(ctx, expressions.join("\n")) }]
      : [];
    const own = [...before, ...(result?.steps ?? [])];
    if (result?.branch) return [...own, ...branchSteps(name, result.branch, next, stop)];
    if (next.slice(1).some((output) => output.length)) ctx.warn("Only its first output is followed (n8n's error output is not).");
    return [...own, ...walkList(next[0] ?? [], name, stop)];
  };

  /** The nodes one output feeds, in n8n's order; where they meet again, that part follows them all. */
  const walkList = (targets: string[], from: string, stop: Set<string>): Step[] => {
    if (targets.length <= 1) return targets.flatMap((target) => walkNode(target, from, stop));
    const { branches, after } = walkBranches(
      targets.map((target) => [target]),
      from,
      stop,
    );
    return [...branches.flat(), ...after];
  };

  const walkBranches = (lists: string[][], from: string, stop: Set<string>) => {
    const joined = new Set([...graph.joined(lists)].filter((name) => !placed.has(name) && !stop.has(name)));
    const inner = new Set([...stop, ...joined]);
    const branches = lists.map((list) => walkList(list, from, inner));
    const entries = graph.byPosition([...joined].filter((name) => graph.incoming(name).some((source) => !joined.has(source))));
    const after = entries.flatMap((entry) => {
      const sources = graph.incoming(entry).filter((source) => placed.has(source) || source === from);
      if (sources.length > 1) {
        warnings.push({ node: entry, reason: `Branches meet here: the hub runs it once after them, reading "${sources[0]}"'s output as its input.` });
      }
      return walkNode(entry, sources[0] ?? from, stop);
    });
    return { branches, after };
  };

  /** IF / Switch: nested condition steps, the first case that holds taking its output's steps. */
  const branchSteps = (name: string, branch: NonNullable<NodeResult["branch"]>, next: string[][], stop: Set<string>): Step[] => {
    const { branches, after } = walkBranches(next, name, stop);
    const stepsOf = (output: number | null) => (output === null ? [] : (branches[output] ?? []));
    const used = new Set([...branch.cases.map((c) => c.output), ...(branch.fallback !== null ? [branch.fallback] : [])]);
    next.forEach((targets, output) => {
      if (targets.length && !used.has(output))
        warnings.push({ node: name, reason: `Its output ${output + 1} has no condition the hub could take over: it never runs.` });
    });
    let chain = stepsOf(branch.fallback);
    for (const c of [...branch.cases].reverse()) {
      chain = [{ id: c.stepId, type: "condition", name: graph.node(name)!.name, condition: c.condition, then: stepsOf(c.output), else: chain }];
    }
    return [...chain, ...after];
  };

  // Start at the trigger (or, with none, the nodes nothing feeds), as n8n does.
  const roots = graph.roots();
  const triggers = roots.filter((root) => TRIGGER_TYPES.has(graph.node(root)!.type));
  const starts = triggers.length ? [...triggers, ...roots.filter((root) => !triggers.includes(root))] : roots;
  const steps = starts.flatMap((start) => walkNode(start, undefined, new Set()));
  for (const node of graph.all()) {
    if (!placed.has(node.name)) warnings.push({ node: node.name, reason: "No trigger leads to it: left out." });
  }
  if (!steps.length) {
    throw new HubError("validation_failed", "No node of this n8n workflow could be taken over.", {
      errors: [{ location: "body", field: `${field}.nodes`, message: "No node maps to a hub step: see the mapping in docs/import-export.md." }],
    });
  }
  const name = (workflow.name ?? "Imported from n8n").slice(0, 200) || "Imported from n8n";
  return {
    workflow: {
      workflow_name: name,
      description: `Imported from the n8n workflow "${name}".`,
      steps,
      trigger_type: trigger?.type ?? "manual",
      trigger_config: trigger?.config ?? {},
      workflow_metadata: { imported_from: "n8n", ...(workflow.id ? { n8n_workflow_id: workflow.id } : {}) },
    },
    warnings,
    lastStepId: steps.at(-1)?.id,
    calls: calledWorkflowIds(workflow),
  };
}

/** A node's name as a step id: letters, digits, _ and -, starting with a letter. */
function slug(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9_-]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/^[_-]+|[_-]+$/g, "");
  return (/^[A-Za-z]/.test(cleaned) ? cleaned : `n${cleaned ? `_${cleaned}` : ""}`).slice(0, 48);
}
