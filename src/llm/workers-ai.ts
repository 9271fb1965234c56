import type { ChatProvider, GenerateRequest, GenerateResult } from "./types";
import { ProviderError } from "./types";

export const DEFAULT_WORKERS_AI_MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";

type WorkersAiOutput = {
  response?: string;
  tool_calls?: { name: string; arguments: Record<string, unknown> | string }[];
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
      let output: WorkersAiOutput;
      try {
        output = (await (ai as any).run(model, { messages, ...(tools.length ? { tools } : {}) })) as WorkersAiOutput;
      } catch (error) {
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

function safeJson(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}
