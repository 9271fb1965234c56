import { HubError } from "../core/errors";
import type { MessageRecord } from "../conversations/messages";
import type { Step } from "./steps";
import type { ServiceContext } from "../core/context";
import { conversationMessages } from "../conversations/turns";
import { createWorkflow } from "./service";

/**
 * Turns the successful tool calls of a conversation into tool steps, in the order they ran.
 * `selectedStepIds` picks calls by their tool_call_id; each name in `parameterizeFields` (an
 * argument name, or `<tool_call_id>.<argument>`) becomes a `{{variable}}` whose default is the
 * value it had in the conversation.
 */
export function extractSteps(
  messages: MessageRecord[],
  options: { selectedStepIds?: string[]; parameterizeFields?: string[] },
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
  const steps: Step[] = chosen.map((call, index) => {
    const args: Record<string, unknown> = { ...call.arguments };
    for (const [argument, value] of Object.entries(call.arguments)) {
      const wanted = fields.includes(argument) || fields.includes(`${call.id}.${argument}`);
      if (!wanted) continue;
      // The first call's value is the default; the same name in later calls shares the variable.
      if (!(argument in variables)) variables[argument] = value;
      args[argument] = `{{${argument}}}`;
    }
    return { id: `step_${index + 1}`, type: "tool", name: `${call.name} (from the conversation)`, tool: call.name, arguments: args };
  });
  return { steps, variables };
}

/** Turns the tool calls of one of the caller's conversations into a saved workflow. */
export async function createWorkflowFromConversation(
  ctx: ServiceContext,
  input: {
    conversationId: number;
    name: string;
    description?: string | null;
    selectedStepIds?: string[];
    parameterizeFields?: string[];
    triggerType?: string;
    triggerConfig?: Record<string, unknown>;
  },
) {
  const messages = await conversationMessages(ctx, input.conversationId, {});
  const { steps, variables } = extractSteps(messages, { selectedStepIds: input.selectedStepIds, parameterizeFields: input.parameterizeFields });
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
