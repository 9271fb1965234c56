import type { ChatProvider, GenerateRequest, GenerateResult } from "./types";
import { ProviderError } from "./types";
import { readWorkersAiStream, type WorkersAiToolCall } from "./workers-ai-stream";

export const DEFAULT_WORKERS_AI_MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";

type WorkersAiOutput = {
  response?: string;
  tool_calls?: WorkersAiToolCall[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
};

/**
 * Workers AI through the `AI` binding (present when deployed with [ai] in wrangler.toml). Uses
 * the binding's function-calling interface; tool results go back as tool-role messages.
 */
export function workersAiProvider(ai: Ai, model: string): ChatProvider {
  return {
    id: "workers-ai",
    model,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const messages = request.messages.map((m) => {
        if (m.role === "tool") return { role: "tool", content: m.content, tool_call_id: m.toolCallId, name: m.toolName };
        if (m.role === "assistant" && m.toolCalls?.length) {
          return {
            role: "assistant",
            content: m.content,
            tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
          };
        }
        return { role: m.role, content: m.content };
      });
      const tools = request.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } }));
      const inputs = { messages, ...(tools.length ? { tools } : {}) };
      let output: WorkersAiOutput;
      try {
        output = request.onTextDelta
          ? await streamed(ai, model, inputs, request.onTextDelta, request.signal)
          : ((await (ai as any).run(model, inputs)) as WorkersAiOutput);
      } catch (error) {
        if (error instanceof ProviderError) throw error;
        throw new ProviderError(`The workers-ai provider failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      return {
        text: output.response ?? "",
        toolCalls: (output.tool_calls ?? []).map((call, i) => ({
          id: `wai_${crypto.randomUUID()}_${i}`,
          name: call.name,
          arguments: typeof call.arguments === "string" ? safeJson(call.arguments) : (call.arguments ?? {}),
        })),
        usage: { inputTokens: output.usage?.prompt_tokens ?? 0, outputTokens: output.usage?.completion_tokens ?? 0 },
        model,
      };
    },
  };
}

/**
 * Asks the binding to stream (`stream: true`) and reads its events as they come. A binding that
 * answers whole anyway (a model without streaming) has its text handed over once.
 */
async function streamed(ai: Ai, model: string, inputs: object, onTextDelta: (text: string) => void, signal?: AbortSignal): Promise<WorkersAiOutput> {
  const answer: unknown = await (ai as any).run(model, { ...inputs, stream: true });
  if (answer instanceof ReadableStream) {
    const read = await readWorkersAiStream(answer, onTextDelta, signal);
    return { response: read.text, tool_calls: read.toolCalls, usage: read.usage };
  }
  const output = (answer ?? {}) as WorkersAiOutput;
  if (output.response) onTextDelta(output.response);
  return output;
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}
