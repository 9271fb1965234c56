import type { JsonSchema } from "../tools/types";

/** One message of the model's context, in a provider-neutral shape. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: ToolCallRequest[] }
  | { role: "tool"; toolCallId: string; toolName: string; content: string };

export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** A tool as offered to a model: name, description and JSON Schema of its input. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export interface GenerateRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal?: AbortSignal;
}

export interface GenerateResult {
  text: string;
  toolCalls: ToolCallRequest[];
  usage: { inputTokens: number; outputTokens: number };
  model: string;
}

/** A configured model provider, ready to answer. */
export interface ChatProvider {
  id: string;
  model: string;
  generate(request: GenerateRequest): Promise<GenerateResult>;
}

/** A provider that failed (unreachable, refused, malformed answer); the message is shown to the user. */
export class ProviderError extends Error {}
