import type { NodeContext, NodeResult } from "../types";
import { ifNode, switchNode } from "./branch";
import { codeNode } from "./code";
import { executeWorkflowNode } from "./execute-workflow";
import { httpRequestNode } from "./http";
import { PLATFORM_NODES, platformNode } from "./platforms";
import { setNode } from "./set";
import { intervalTrigger, manualTrigger, scheduleTrigger, webhookTrigger } from "./triggers";
import { waitNode } from "./wait";

type Converter = (ctx: NodeContext) => NodeResult | null;

/** n8n node types the hub takes over, by type; null from a converter: not taken over (it warned why). */
const CONVERTERS: Record<string, Converter> = {
  "n8n-nodes-base.manualTrigger": manualTrigger,
  "n8n-nodes-base.start": manualTrigger,
  "n8n-nodes-base.executeWorkflowTrigger": manualTrigger,
  "n8n-nodes-base.webhook": webhookTrigger,
  "n8n-nodes-base.scheduleTrigger": scheduleTrigger,
  "n8n-nodes-base.interval": intervalTrigger,
  "n8n-nodes-base.set": setNode,
  "n8n-nodes-base.if": ifNode,
  "n8n-nodes-base.switch": switchNode,
  "n8n-nodes-base.httpRequest": httpRequestNode,
  "n8n-nodes-base.code": codeNode,
  "n8n-nodes-base.function": codeNode,
  "n8n-nodes-base.functionItem": codeNode,
  "n8n-nodes-base.wait": waitNode,
  "n8n-nodes-base.executeWorkflow": executeWorkflowNode,
  // Nodes that only pass their items on: nothing to run.
  "n8n-nodes-base.noOp": () => ({ steps: [] }),
  ...Object.fromEntries(Object.keys(PLATFORM_NODES).map((type) => [type, platformNode])),
};

export const TRIGGER_TYPES = new Set([
  "n8n-nodes-base.manualTrigger",
  "n8n-nodes-base.start",
  "n8n-nodes-base.executeWorkflowTrigger",
  "n8n-nodes-base.webhook",
  "n8n-nodes-base.scheduleTrigger",
  "n8n-nodes-base.interval",
]);

/** The converter of a node type, if the hub takes that type over. */
export const converterOf = (type: string): Converter | undefined => CONVERTERS[type];
