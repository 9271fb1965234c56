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

/**
 * Structured output: the answer must be a JSON object matching `schema`. Providers that can
 * constrain the answer do (OpenAI-compatible: `response_format: {type: "json_schema"}`;
 * Anthropic: its output format or a forced JSON tool); the answer's `text` is then that JSON.
 * A provider that cannot, or a server that ignores it, answers in text: callers still parse and
 * validate what comes back.
 */
export interface StructuredOutput {
  /** Letters, digits, _ and - (OpenAI's rule for a schema's name). */
  name: string;
  schema: JsonSchema;
}

export interface GenerateRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  output?: StructuredOutput;
  signal?: AbortSignal;
  /**
   * Asks the provider to stream: each piece of the answer's text is handed here as the model
   * produces it, in order; joined, the pieces equal the result's `text`. A provider that cannot
   * stream hands its whole text once, before it answers.
   */
  onTextDelta?: (text: string) => void;
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
