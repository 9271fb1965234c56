import { ConnectionRefSchema, type BundleWorkflow, type ConnectionRef } from "./bundle";
import type { ConnectionIdOf } from "./connection-mapping";
import { eachStep, isRecord, localMcpTool } from "./step-walk";

/** What a bundle's workflow holds in place of ids: the workflows and connections it names. */
export interface NamedReferences {
  workflows: string[];
  connections: ConnectionRef[];
  /** References that are not `{ref}` / `{platform, name}` objects, or ids written as in a saved workflow. */
  problems: string[];
}

export function referencesOf(workflow: BundleWorkflow): NamedReferences {
  const found: NamedReferences = { workflows: [], connections: [], problems: [] };
  const connection = (value: unknown, where: string) => {
    if (value === undefined) return;
    const parsed = ConnectionRefSchema.safeParse(value);
    if (parsed.success) found.connections.push(parsed.data);
    else found.problems.push(`${where}: a connection is named as {"platform": …, "name": …}.`);
  };
  const workflowRef = (value: unknown, where: string) => {
    if (isRecord(value) && typeof value.ref === "string") found.workflows.push(value.ref);
    else found.problems.push(`${where}: a workflow is named as {"ref": …} (a bundle holds no ids).`);
  };
  eachStep(workflow.steps, (step) => {
    const where = `step "${String(step.id)}"`;
    if (step.type === "workflow") workflowRef(step.workflow, where);
    if (step.type === "tool") connection(step.connection, where);
    if (step.type === "agent" && Array.isArray(step.tools)) {
      for (const entry of step.tools) if (isRecord(entry)) connection(entry.connection, where);
    }
    if (isRecord(step.arguments) && step.arguments.connection_id !== undefined) {
      found.problems.push(`${where}: a connection is named by the step's "connection", not by an id in its arguments.`);
    }
  });
  connection(workflow.trigger_config.connection, "trigger_config");
  const onFailure = workflow.settings.on_failure;
  if (isRecord(onFailure)) workflowRef(onFailure.workflow, "settings.on_failure");
  return found;
}

/** The workflow's steps, trigger config and settings with the bundle's references turned into this workspace's ids. */
export function localFields(workflow: BundleWorkflow, workflowIdOf: (ref: string) => number, connectionIdOf: ConnectionIdOf) {
  const steps = structuredClone(workflow.steps);
  eachStep(steps, (step) => {
    if (step.type === "workflow" && isRecord(step.workflow)) {
      step.workflow_id = workflowIdOf(String(step.workflow.ref));
      delete step.workflow;
    }
    if (step.type === "tool" && step.connection !== undefined) {
      const id = connectionIdOf(step.connection as ConnectionRef);
      const local = localMcpTool(step.tool, id);
      if (local !== step.tool) step.tool = local;
      else step.arguments = { ...(isRecord(step.arguments) ? step.arguments : {}), connection_id: id };
      delete step.connection;
    }
    if (step.type === "agent" && Array.isArray(step.tools)) {
      step.tools = step.tools.map((entry) => (isRecord(entry) ? localMcpTool(entry.tool, connectionIdOf(entry.connection as ConnectionRef)) : entry));
    }
  });

  const triggerConfig = structuredClone(workflow.trigger_config);
  if (triggerConfig.connection !== undefined) {
    const id = connectionIdOf(triggerConfig.connection as ConnectionRef);
    const local = localMcpTool(triggerConfig.tool, id);
    if (local !== triggerConfig.tool) triggerConfig.tool = local;
    else triggerConfig.arguments = { ...(isRecord(triggerConfig.arguments) ? triggerConfig.arguments : {}), connection_id: id };
    delete triggerConfig.connection;
  }

  const settings = structuredClone(workflow.settings);
  if (isRecord(settings.on_failure) && isRecord(settings.on_failure.workflow)) {
    settings.on_failure = { workflow_id: workflowIdOf(String(settings.on_failure.workflow.ref)) };
  }
  return { steps, triggerConfig, settings };
}
