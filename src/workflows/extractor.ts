import { HubError } from "../core/errors";
import type { MessageRecord } from "../conversations/messages";
import type { Step } from "./steps";
import type { ServiceContext } from "../core/context";
import { EXTRACTED_MESSAGES, latestMessages } from "../conversations/turns";
import { createWorkflow } from "./service";
import { ResultIndex, resultsByCall } from "./link-values";

/**
 * Turns the successful tool calls of a conversation into tool steps, in the order they ran.
 * `selectedStepIds` picks calls by their tool_call_id; each name in `parameterizeFields` (an
 * argument name, or `<tool_call_id>.<argument>`) becomes a `{{variable}}` whose default is the
 * value it had in the conversation. An argument whose value an earlier chosen call returned is
 * written as a link to that result (`{{steps.step_1.result.id}}`).
 */
export function extractSteps(
  messages: MessageRecord[],
  options: { selectedStepIds?: string[]; parameterizeFields?: string[]; loopRepeatedCalls?: boolean },
): { steps: Step[]; variables: Record<string, unknown> } {
  const calls = messages.filter((m) => m.role === "assistant").flatMap((m) => m.tools_called.filter((c) => c.success));
  const chosen = options.selectedStepIds?.length ? calls.filter((c) => options.selectedStepIds!.includes(c.id)) : calls;
  const unknown = (options.selectedStepIds ?? []).filter((id) => !calls.some((c) => c.id === id));
  if (unknown.length) {
    throw new HubError("validation_failed", "Some selected steps are not successful tool calls of this conversation.", {
      errors: unknown.map((id) => ({ location: "body", field: "selected_step_ids", message: `No successful tool call "${id}".` })),
    });
  }
  if (chosen.length === 0) {
    throw new HubError("validation_failed", "The conversation has no successful tool calls to turn into steps.", {
      errors: [{ location: "body", field: "conversation_id", message: "No tool calls." }],
    });
  }
  const fields = options.parameterizeFields ?? [];
  const variables: Record<string, unknown> = {};
  const results = resultsByCall(messages);
  const returned = new ResultIndex();
  const steps: Step[] = chosen.map((call, index) => {
    // A value an earlier step returned (the contact id step 1 created) is linked, not copied:
    // the workflow passes along what each run gets.
    const args: Record<string, unknown> = returned.link({ ...call.arguments });
    for (const [argument, value] of Object.entries(call.arguments)) {
      const wanted = fields.includes(argument) || fields.includes(`${call.id}.${argument}`);
      if (!wanted) continue;
      // The first call's value is the default; the same name in later calls shares the variable.
      if (!(argument in variables)) variables[argument] = value;
      args[argument] = `{{${argument}}}`;
    }
    const id = `step_${index + 1}`;
    if (results.has(call.id)) returned.add(id, results.get(call.id));
    return { id, type: "tool", name: `${call.name} (from the conversation)`, tool: call.name, arguments: args };
  });
  return { steps: options.loopRepeatedCalls ? loopRepeatedCalls(steps) : steps, variables };
}

type ToolStep = Extract<Step, { type: "tool" }>;

/**
 * Consecutive calls of one tool with the same argument names (the same message sent to three
 * leads, say) become one `for_each` over the values that differ, the calls' own values as its
 * items; arguments equal in every call stay as they are.
 */
export function loopRepeatedCalls(steps: Step[]): Step[] {
  const out: Step[] = [];
  for (let i = 0; i < steps.length; ) {
    const first = steps[i] as ToolStep;
    let end = i + 1;
    while (end < steps.length && sameShape(first, steps[end] as ToolStep)) end++;
    const run = steps.slice(i, end) as ToolStep[];
    i = end;
    const varying = Object.keys(first.arguments).filter((name) =>
      run.some((step) => JSON.stringify(step.arguments[name]) !== JSON.stringify(first.arguments[name])),
    );
    if (run.length < 2 || varying.length === 0) {
      out.push(...run);
      continue;
    }
    const items = run.map((step) => Object.fromEntries(varying.map((name) => [name, step.arguments[name]])));
    const args = Object.fromEntries(Object.entries(first.arguments).map(([name, value]) => [name, varying.includes(name) ? `{{item.${name}}}` : value]));
    out.push({
      id: `each_${first.id}`,
      type: "for_each",
      name: `${first.tool} for each of ${run.length} (from the conversation)`,
      items,
      as: "item",
      concurrency: 1,
      steps: [{ ...first, arguments: args }],
    });
  }
  return out;
}

function sameShape(a: ToolStep, b: ToolStep): boolean {
  return a.tool === b.tool && JSON.stringify(Object.keys(a.arguments).sort()) === JSON.stringify(Object.keys(b.arguments).sort());
}

/** Turns the tool calls of one of the caller's conversations (its last EXTRACTED_MESSAGES messages) into a saved workflow. */
export async function createWorkflowFromConversation(
  ctx: ServiceContext,
  input: {
    conversationId: number;
    name: string;
    description?: string | null;
    selectedStepIds?: string[];
    parameterizeFields?: string[];
    loopRepeatedCalls?: boolean;
    triggerType?: string;
    triggerConfig?: Record<string, unknown>;
  },
) {
  const messages = await latestMessages(ctx, input.conversationId, EXTRACTED_MESSAGES);
  const { steps, variables } = extractSteps(messages, {
    selectedStepIds: input.selectedStepIds,
    parameterizeFields: input.parameterizeFields,
    loopRepeatedCalls: input.loopRepeatedCalls,
  });
  return createWorkflow(ctx, {
    name: input.name,
    description: input.description ?? `Extracted from conversation ${input.conversationId}.`,
    steps,
    variables,
    triggerType: input.triggerType,
    triggerConfig: input.triggerConfig,
    metadata: { extracted_from_conversation: input.conversationId },
  });
}
