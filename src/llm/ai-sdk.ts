import { APICallError, NoObjectGeneratedError, Output, generateText, jsonSchema, tool, type LanguageModel, type ModelMessage } from "ai";
import { streamAnswer } from "./ai-sdk-stream";
import type { ChatMessage, ChatProvider, GenerateRequest, GenerateResult, ToolCallRequest } from "./types";
import { ProviderError } from "./types";

/**
 * Wraps a language model from the `ai` SDK as a ChatProvider. Tools are offered without an
 * `execute`, so the SDK stops at the model's tool calls and the orchestrator runs them through
 * the hub's own executor (limits, audit, connection health).
 */
export function aiSdkProvider(id: string, modelName: string, model: LanguageModel): ChatProvider {
  const answerWhole = async (request: GenerateRequest): Promise<GenerateResult> => {
    try {
      const result = await generateText({
        ...callOf(model, request),
        ...(request.output
          ? {
              output: Output.object({ schema: jsonSchema(request.output.schema as any), name: request.output.name }),
              // Not strict: OpenAI's strict mode refuses schemas with optional fields and open
              // objects (step arguments are open); the answer is validated by the caller anyway.
              providerOptions: { [id]: { strictJsonSchema: false } },
            }
          : {}),
      });
      return {
        // Structured: the parsed object (Anthropic's JSON tool leaves no text), as JSON text.
        text: request.output && result.output !== undefined ? JSON.stringify(result.output) : result.text,
        toolCalls: result.toolCalls.map(toToolCall),
        usage: { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 },
        model: modelName,
      };
    } catch (error) {
      // Asked for JSON, answered with something else: the caller parses and repairs the text.
      if (NoObjectGeneratedError.isInstance(error)) {
        return {
          text: error.text ?? "",
          toolCalls: [],
          usage: { inputTokens: error.usage?.inputTokens ?? 0, outputTokens: error.usage?.outputTokens ?? 0 },
          model: modelName,
        };
      }
      throw new ProviderError(describe(id, error));
    }
  };

  const answerStreamed = async (request: GenerateRequest, onTextDelta: (text: string) => void): Promise<GenerateResult> => {
    try {
      const streamed = await streamAnswer(callOf(model, request), onTextDelta);
      return { text: streamed.text, toolCalls: streamed.toolCalls.map(toToolCall), usage: streamed.usage, model: modelName };
    } catch (error) {
      throw new ProviderError(describe(id, error));
    }
  };

  return {
    id,
    model: modelName,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const { onTextDelta } = request;
      // Chat turns stream; structured output is asked whole (its text is JSON, not prose to show).
      if (onTextDelta && !request.output) return answerStreamed(request, onTextDelta);
      const answer = await answerWhole(request);
      // Asked to stream but answered whole: the listener gets the text once, as promised.
      if (onTextDelta && answer.text) onTextDelta(answer.text);
      return answer;
    },
  };
}

/** What every request to the model carries, streamed or not. */
function callOf(model: LanguageModel, request: GenerateRequest) {
  const system = request.messages
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n\n");
  return {
    model,
    ...(system ? { system } : {}),
    messages: toModelMessages(request.messages.filter((m) => m.role !== "system")),
    tools: request.tools.length
      ? Object.fromEntries(request.tools.map((t) => [t.name, tool({ description: t.description, inputSchema: jsonSchema(t.inputSchema as any) })]))
      : undefined,
    abortSignal: request.signal,
    maxRetries: 1,
  };
}

const toToolCall = (call: { toolCallId: string; toolName: string; input: unknown }): ToolCallRequest => ({
  id: call.toolCallId,
  name: call.toolName,
  arguments: (call.input ?? {}) as Record<string, unknown>,
});

function describe(id: string, error: unknown): string {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode ? ` (HTTP ${error.statusCode})` : "";
    return `The ${id} provider failed${status}: ${error.message.slice(0, 500)}`;
  }
  return `The ${id} provider failed: ${error instanceof Error ? error.message.slice(0, 500) : String(error)}`;
}

export function toModelMessages(messages: ChatMessage[]): ModelMessage[] {
  return messages.map((message): ModelMessage => {
    switch (message.role) {
      case "user":
        return { role: "user", content: message.content };
      case "assistant":
        return {
          role: "assistant",
          content: [
            ...(message.content ? [{ type: "text" as const, text: message.content }] : []),
            ...(message.toolCalls ?? []).map((call) => ({ type: "tool-call" as const, toolCallId: call.id, toolName: call.name, input: call.arguments })),
          ],
        };
      case "tool":
        return {
          role: "tool",
          content: [{ type: "tool-result", toolCallId: message.toolCallId, toolName: message.toolName, output: { type: "text", value: message.content } }],
        };
      case "system":
        return { role: "system", content: message.content };
      default:
        throw new Error(`Unknown message role: ${(message as { role: string }).role}`);
    }
  });
}
