import type { Condition } from "../../lib/conditions";
import type { Step } from "../../workflows/steps";

/** One node of an n8n workflow export, as n8n writes it. */
export interface N8nNode {
  id?: string;
  name: string;
  type: string;
  typeVersion?: number;
  position?: [number, number];
  parameters?: Record<string, unknown>;
  disabled?: boolean;
}

/** `connections[<source node name>].main[<output index>]`: the nodes that output feeds. */
export type N8nConnections = Record<string, { main?: ({ node: string; type?: string; index?: number }[] | null)[] }>;

export interface N8nWorkflow {
  id?: string;
  name?: string;
  nodes: N8nNode[];
  connections: N8nConnections;
  settings?: { timezone?: string; [key: string]: unknown };
}

/** Something of the export the hub could not take over as it was: which node, and why. */
export interface ImportWarning {
  node: string;
  reason: string;
}

/**
 * One layer of what n8n calls an item's `json` after a node: where the hub keeps it (`base`, a
 * placeholder path), and, when known, which keys it has (a Set node's fields). An item is a list
 * of layers, the last on top: a Set node that keeps the other fields adds its own layer on top of
 * its input's.
 */
export interface Layer {
  base: string;
  /** The layer's own keys, when known: other keys are looked up in the layers below. */
  keys?: Set<string>;
  /** Keys that stand for another path (a webhook's `body` is the run's input), or null: not kept by the hub. Only these keys exist. */
  aliases?: Record<string, string | null>;
}
export type Item = Layer[];

/** An n8n workflow imported in the same call: its hub id, and the id of the step whose result is its output. */
export interface ImportedWorkflow {
  id: number;
  lastStepId?: string;
}

/** What the converter knows while it converts one node. */
export interface NodeContext {
  node: N8nNode;
  /** The step id this node's step takes. */
  stepId: string;
  /** The item the node reads as `$json`: its input's. */
  input: Item;
  /** The item a node gives, by node name (for `$('Node')`), for the nodes converted so far. */
  outputOf(name: string): Item | undefined;
  warn(reason: string): void;
  /** Translates a parameter value (n8n expressions included) to a hub value with placeholders. */
  value(raw: unknown): unknown;
  /** A placeholder for the value of a JavaScript expression (see ExpressionScope.computed). */
  computed(js: string): string;
  /** Another step id for this node (a Switch's later cases), unique in the workflow. */
  extraId(suffix: string): string;
  /** The hub workflow an Execute Workflow node's target was imported as (with the step its result ends with), if it was. */
  importedWorkflow(n8nId: string): ImportedWorkflow | undefined;
  /** The n8n workflow's own id and name (`$workflow`). */
  workflow: { id?: string; name?: string };
  /** The n8n workflow's time zone (settings.timezone), if set. */
  timezone?: string;
}

/** What a node becomes. */
export interface NodeResult {
  /** The steps it becomes (none for a node the hub needs no step for, like NoOp). */
  steps: Step[];
  /** Its output item (default: its input's, passed through). */
  output?: Item;
  /**
   * A branching node (IF, Switch): its cases in order (the first that holds picks its output), and
   * the output taken when none holds (null: none). The graph walk builds the nested condition steps.
   */
  branch?: { cases: { condition: Condition; output: number; stepId: string }[]; fallback: number | null };
  /** A trigger: the workflow's trigger_type and trigger_config. */
  trigger?: { type: string; config: Record<string, unknown> };
}
