import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import type { Scope } from "../core/scopes";
import type { Workflow } from "../db/schema";
import { presentExecution, getOwnedExecution } from "../executions/present";
import { runWorkflow } from "../executions/start-and-run";
import { listWorkflowSummaries } from "../workflows/service";
import { listAgents, presentAgent, runAgentNow } from "../agents/service";
import { triggerShapedInput } from "../agents/trigger-input";
import type { JsonSchema } from "../tools/types";

/** How long a workflow or agent tool waits for its run (DESIGN.md §4: up to 60 s). */
const RUN_WAIT_SECONDS = 60;
const LIST_LIMIT = 100;

/** A tool of the hub itself: what it needs, what it takes, what it does. */
export interface HubTool {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  inputSchema: JsonSchema;
  /** `origin`: the hub's, as the client reached it (for absolute URLs such as a webhook's). */
  run(ctx: ServiceContext, args: Record<string, unknown>, origin: string): Promise<{ result: Record<string, unknown>; failed?: boolean }>;
}

export const WORKFLOW_TOOL_PREFIX = "workflow_";

/** `workflow_<id>` names an active workflow of the caller. */
export const workflowToolName = (id: number) => `${WORKFLOW_TOOL_PREFIX}${id}`;

export function parseWorkflowToolName(name: string): number | undefined {
  const match = name.match(/^workflow_([1-9][0-9]{0,15})$/);
  return match ? Number(match[1]) : undefined;
}

const executionId = { type: "string", description: "An execution id (exe_…)." };

export const HUB_TOOLS: HubTool[] = [
  {
    name: "hub_list_workflows",
    title: "List workflows",
    description: "Lists your workflows (newest first): id, name, description, status, version and the tool that runs each active one.",
    scope: "data:read",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    run: async (ctx) => {
      const rows = await listWorkflowSummaries(ctx, LIST_LIMIT);
      return {
        result: {
          workflows: rows.map((w) => ({
            id: w.id,
            name: w.name,
            description: w.description,
            status: w.status,
            version: w.version,
            tool: w.status === "active" ? workflowToolName(w.id) : null,
          })),
        },
      };
    },
  },
  {
    name: "hub_get_execution",
    title: "Get an execution",
    description: "Shows one of your executions with its steps: status, per-step results and errors.",
    scope: "data:read",
    inputSchema: { type: "object", properties: { execution_id: executionId }, required: ["execution_id"], additionalProperties: false },
    run: async (ctx, args) => {
      const execution = await getOwnedExecution(ctx, stringArg(args, "execution_id"));
      return { result: await presentExecution(ctx.db, execution, true) };
    },
  },
  {
    name: "hub_list_agents",
    title: "List agents",
    description:
      "Lists your deployed agents (newest first): id, workflow, status, and the trigger that starts each one (manual, schedule, webhook with its URL and verification scheme, or poll with its tool and interval), with health.",
    scope: "data:read",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    run: async (ctx, _args, origin) => {
      const rows = await listAgents(ctx);
      return {
        result: {
          agents: rows.slice(0, LIST_LIMIT).map((row) => {
            const agent = presentAgent(row.agent, row.workflowName, row.triggerConfig, origin);
            return { ...pick(agent, ["agent_id", "workflow_id", "workflow_name", "status", "trigger", "schedule"]), monitoring: agent.monitoring };
          }),
        },
      };
    },
  },
  {
    name: "hub_execute_agent",
    title: "Run an agent",
    description: `Runs one of your deployed agents now and waits up to ${RUN_WAIT_SECONDS} s for the execution to finish (cancelling the call stops the wait, not the run). Give "input" (the run's input_data), or stand in for the agent's trigger: "event" (and "event_type") for a webhook agent, shaped as a delivery would be ({event, event_id, event_type, received_at} for a provider's scheme), or "item" for a polling agent ({item}, or {items: [item]} in batch mode).`,
    scope: "workflow:execute",
    inputSchema: {
      type: "object",
      properties: {
        agent_id: { type: "string", description: "The agent's id (a UUID; hub_list_agents lists them)." },
        input: { type: "object", description: "The run's input_data.", additionalProperties: true },
        event: { description: "For a webhook agent: a sample event, as the provider would send it." },
        event_type: { type: "string", description: "For a webhook agent: the event's type (e.g. payment_intent.succeeded)." },
        item: { description: "For a polling agent: one item, as the polled tool would return it." },
      },
      required: ["agent_id"],
      additionalProperties: false,
    },
    run: async (ctx, args) => {
      const agentId = stringArg(args, "agent_id");
      const given = ["input", "event", "item"].filter((field) => args[field] !== undefined);
      if (given.length > 1) {
        throw new HubError("validation_failed", `Give one of "input", "event" or "item", not ${given.join(" and ")}.`, {
          errors: [{ location: "arguments", field: given[1]!, message: "Only one of input, event and item." }],
        });
      }
      let input = args.input ?? {};
      if (typeof input !== "object" || input === null || Array.isArray(input)) {
        throw new HubError("validation_failed", '"input" must be a JSON object.', {
          errors: [{ location: "arguments", field: "input", message: "Expected an object." }],
        });
      }
      if (args.event !== undefined || args.item !== undefined) {
        const eventType = typeof args.event_type === "string" ? args.event_type : undefined;
        input = await triggerShapedInput(ctx, agentId, { event: args.event, event_type: eventType, item: args.item });
      }
      const started = await runAgentNow(ctx, agentId, input as Record<string, unknown>, { waitSeconds: RUN_WAIT_SECONDS });
      return presentRun(ctx, started);
    },
  },
];

const pick = <T extends Record<string, unknown>, K extends keyof T>(value: T, keys: K[]) =>
  Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;

/** Runs a workflow tool: the run's input is the tool's arguments. */
export async function runWorkflowTool(ctx: ServiceContext, workflowId: number, args: Record<string, unknown>) {
  return presentRun(ctx, await runWorkflow(ctx, workflowId, args, { waitSeconds: RUN_WAIT_SECONDS }));
}

async function presentRun(ctx: ServiceContext, started: Awaited<ReturnType<typeof runWorkflow>>) {
  if (!started.finished) {
    return {
      result: {
        execution_id: started.execution.id,
        status: "running",
        message: `Still running after ${RUN_WAIT_SECONDS} s; follow it with hub_get_execution.`,
      },
    };
  }
  const execution = await presentExecution(ctx.db, started.finished.execution, true, started.finished.steps);
  return { result: execution, failed: execution.status !== "succeeded" };
}

/**
 * A workflow as a tool: its variables are the inputs (each optional, its current value the
 * default), and any other field is passed on as input too.
 */
export function workflowTool(workflow: Pick<Workflow, "id" | "name" | "description" | "version" | "variables">) {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, value] of Object.entries(workflow.variables ?? {})) properties[name] = { ...schemaOf(value), default: value };
  return {
    name: workflowToolName(workflow.id),
    title: workflow.name,
    description: `${workflow.description || workflow.name} (runs workflow ${workflow.id}, version ${workflow.version}, and answers with the finished execution; cancelling the call stops the wait, not the run)`,
    inputSchema: { type: "object", properties, additionalProperties: true } as JsonSchema,
  };
}

function schemaOf(value: unknown): JsonSchema {
  if (Array.isArray(value)) return { type: "array" };
  if (value === null) return {};
  switch (typeof value) {
    case "string":
      return { type: "string" };
    case "number":
      return { type: "number" };
    case "boolean":
      return { type: "boolean" };
    case "object":
      return { type: "object" };
    default:
      return {};
  }
}

function stringArg(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  if (typeof value !== "string" || value.length === 0 || value.length > 200) {
    throw new HubError("validation_failed", `"${name}" must be a non-empty string.`, {
      errors: [{ location: "arguments", field: name, message: "Required string." }],
    });
  }
  return value;
}
