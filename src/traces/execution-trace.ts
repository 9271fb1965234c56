import { and, asc, eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { notFound } from "../core/errors";
import { type Execution, type ExecutionStep, executionSteps, executions, workflows } from "../db/schema";
import { loggableError } from "../lib/safe-log";
import { exportSpans } from "./otlp";
import { agentStepSpans } from "./agent-step-spans";
import { ATTR, MAX_SPANS_PER_TRACE, SPAN_KIND, type Span, bounded, stableId } from "./spans";

/** What a run's trace reads of a step's definition (the run's snapshot of its workflow's steps). */
interface StepDefinition {
  id: string;
  type: string;
  tool?: string;
  model?: string;
  provider?: string;
}

/**
 * A run's trace, built on read from what the run stores (no write in the run's path, so every
 * run has one): a root `invoke_workflow <workflow>` span for the run and a child per step record
 * in the order the steps ran: `execute_tool <tool>` for tool steps, `chat <model>` for llm steps
 * (with the usage they recorded), `invoke_agent <step>` for agent steps, and `<type> <step>` for
 * the others. Ids are derived from the run's id, so the trace is the same at every read.
 */
export async function executionSpans(execution: Execution, steps: ExecutionStep[], workflowName: string | null): Promise<Span[]> {
  const traceId = await stableId(`execution:${execution.id}`, 16);
  const rootId = await stableId(`execution:${execution.id}:run`, 8);
  const definitions = new Map<string, StepDefinition>();
  collectDefinitions(execution.steps, definitions);
  const shown = steps.slice(0, MAX_SPANS_PER_TRACE - 1);
  const runStart = (execution.startedAt ?? execution.createdAt).getTime();
  const children: Span[] = [];
  for (const record of shown) {
    const definition = definitions.get(record.stepId);
    const startMs = record.startedAt?.getTime() ?? record.finishedAt?.getTime() ?? runStart;
    const span: Span = {
      traceId,
      spanId: await stableId(`execution:${execution.id}:step:${record.stepKey}`, 8),
      parentSpanId: rootId,
      ...stepShape(execution.id, record, definition),
      startMs,
      endMs: Math.max(startMs, record.finishedAt?.getTime() ?? startMs),
      status: record.status === "succeeded" ? "ok" : record.status === "failed" ? "error" : "unset",
    };
    children.push(span);
    // An agent step's own model requests and tool calls, under its span.
    if (record.type === "agent")
      children.push(
        ...(await agentStepSpans(span, { executionId: execution.id, stepKey: record.stepKey, result: record.result }, (name) => stableId(name, 8))),
      );
  }
  const times = children.flatMap((span) => [span.startMs, span.endMs]);
  const startMs = Math.min(runStart, ...times);
  const endMs = Math.max(execution.finishedAt?.getTime() ?? execution.updatedAt.getTime(), startMs, ...times);
  const tokens = (key: string) =>
    children.filter((span) => span.parentSpanId === rootId).reduce((total, span) => total + (Number(span.attributes[key]) || 0), 0);
  const failed = execution.status === "failed";
  const failedStep = failed ? steps.find((s) => s.status === "failed" && s.stepId === execution.failedStepId) : undefined;
  const root: Span = {
    traceId,
    spanId: rootId,
    parentSpanId: null,
    name: `invoke_workflow ${workflowName ?? `workflow ${execution.workflowId}`}`,
    kind: SPAN_KIND.internal,
    startMs,
    endMs,
    status: failed ? "error" : execution.status === "succeeded" ? "ok" : "unset",
    attributes: {
      [ATTR.operation]: "invoke_workflow",
      ...(workflowName ? { [ATTR.workflowName]: workflowName } : {}),
      ...(execution.agentId ? { [ATTR.agentId]: execution.agentId } : {}),
      [ATTR.inputTokens]: tokens(ATTR.inputTokens),
      [ATTR.outputTokens]: tokens(ATTR.outputTokens),
      "hub.execution.id": execution.id,
      "hub.execution.status": execution.status,
      "hub.workflow.id": execution.workflowId,
      "hub.workflow.version": execution.workflowVersion,
      ...(failed ? { [ATTR.errorType]: failedStep?.errorCode ?? "step_failed" } : {}),
      // Only the first step records have spans (a loop over many items leaves many).
      ...(steps.length > shown.length ? { "hub.trace.truncated": true } : {}),
    },
  };
  return bounded([root, ...children]);
}

function stepShape(executionId: string, record: ExecutionStep, definition: StepDefinition | undefined): Pick<Span, "name" | "kind" | "attributes"> {
  const common = {
    "hub.step.id": record.stepId,
    "hub.step.key": record.stepKey,
    "hub.step.type": record.type,
    "hub.step.status": record.status,
    "hub.step.attempts": record.attempts,
    ...(record.status === "failed" ? { [ATTR.errorType]: record.errorCode ?? "step_failed" } : {}),
  };
  const usage: Span["attributes"] = record.usage
    ? { [ATTR.responseModel]: record.usage.model, [ATTR.inputTokens]: record.usage.input_tokens, [ATTR.outputTokens]: record.usage.output_tokens }
    : {};
  if (record.type === "tool" && definition?.tool)
    return {
      name: `execute_tool ${definition.tool}`,
      kind: SPAN_KIND.internal,
      attributes: {
        [ATTR.operation]: "execute_tool",
        [ATTR.toolName]: definition.tool,
        // The step's own idempotency: unique in the run, the same on a retry of it.
        [ATTR.toolCallId]: `${executionId}:${record.stepKey}`,
        [ATTR.toolType]: "function",
        ...common,
      },
    };
  if (record.type === "llm") {
    const model = definition?.model ?? record.usage?.model;
    return {
      name: model ? `chat ${model}` : "chat",
      kind: SPAN_KIND.client,
      attributes: {
        [ATTR.operation]: "chat",
        ...(definition?.provider ? { [ATTR.provider]: definition.provider } : {}),
        ...(model ? { [ATTR.requestModel]: model } : {}),
        ...usage,
        ...common,
      },
    };
  }
  if (record.type === "agent")
    return { name: `invoke_agent ${record.stepId}`, kind: SPAN_KIND.internal, attributes: { [ATTR.operation]: "invoke_agent", ...usage, ...common } };
  return { name: `${record.type} ${record.stepId}`, kind: SPAN_KIND.internal, attributes: common };
}

/** Every step definition of the run's snapshot by id, branches and loop bodies included (ids are unique in a workflow). */
function collectDefinitions(steps: unknown, into: Map<string, StepDefinition>): void {
  if (!Array.isArray(steps)) return;
  for (const step of steps) {
    if (!step || typeof step !== "object") continue;
    const s = step as Record<string, unknown>;
    if (typeof s.id === "string" && typeof s.type === "string")
      into.set(s.id, {
        id: s.id,
        type: s.type,
        ...(typeof s.tool === "string" ? { tool: s.tool } : {}),
        ...(typeof s.model === "string" ? { model: s.model } : {}),
        ...(typeof s.provider === "string" ? { provider: s.provider } : {}),
      });
    for (const inner of ["then", "else", "steps"]) collectDefinitions(s[inner], into);
  }
}

/** Reads a run and its step records, and builds its trace; `userId` limits it to the owner's runs. */
async function loadExecutionSpans(ctx: Pick<ServiceContext, "db">, executionId: string, userId: number): Promise<Span[] | undefined> {
  const row = await ctx.db
    .select({ execution: executions, workflowName: workflows.name })
    .from(executions)
    .leftJoin(workflows, eq(workflows.id, executions.workflowId))
    .where(and(eq(executions.id, executionId), eq(executions.userId, userId)))
    .get();
  if (!row) return undefined;
  const steps = await ctx.db
    .select()
    .from(executionSteps)
    .where(eq(executionSteps.executionId, executionId))
    .orderBy(asc(executionSteps.position))
    .limit(MAX_SPANS_PER_TRACE)
    .all();
  return executionSpans(row.execution, steps, row.workflowName);
}

/** The trace of one of the caller's runs; another user's run is 404. */
export async function executionTrace(ctx: ServiceContext, executionId: string): Promise<Span[]> {
  const spans = await loadExecutionSpans(ctx, executionId, ctx.workspace.id);
  if (!spans) throw notFound("Execution");
  return spans;
}

/**
 * Sends a run's trace to the collector once the run has ended (its records written). Does nothing
 * without OTEL_EXPORTER_OTLP_ENDPOINT; never throws.
 */
export async function exportRunTrace(ctx: ServiceContext, executionId: string): Promise<void> {
  if (!ctx.config.otel.endpoint) return;
  try {
    const spans = await loadExecutionSpans(ctx, executionId, ctx.workspace.id);
    if (spans) await exportSpans(ctx.config, spans);
  } catch (error) {
    console.warn(JSON.stringify({ level: "warn", message: "run trace not exported", execution_id: executionId, error: loggableError(error) }));
  }
}
