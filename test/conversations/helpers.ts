import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { call, json } from "../helpers/api";

export const FAKE = () => env.TEST_FAKE_URL;
export const newScenario = (label: string) => `${label}${crypto.randomUUID().replace(/-/g, "")}`;

/**
 * A scripted answer of the fake. A request that asks to stream (`stream: true`) gets a model's
 * answer as the provider's own event stream (test/fakes/model-streams.mjs), paced and broken as asked.
 */
export interface ScriptedAnswer {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Wait before the first byte. */
  delay_ms?: number;
  /** Wait between a stream's events. */
  chunk_delay_ms?: number;
  /** Close the socket after this many events. */
  break_after_chunks?: number;
  /** Send the provider's in-stream error event after this many events. */
  error_after_chunks?: number;
}

/** Queues the fake model's next answers for a scenario, served one per request in order. */
export async function script(scenario: string, answers: ScriptedAnswer[]) {
  const response = await fetch(`${FAKE()}/__script/${scenario}`, { method: "POST", body: JSON.stringify(answers) });
  expect(response.status).toBe(204);
}

export async function modelRequests(scenario: string): Promise<any[]> {
  return (await fetch(`${FAKE()}/__requests/${scenario}`)).json();
}

export async function newConversation(token: string, title?: string): Promise<number> {
  const response = await call("/v1/conversations", { token, json: title ? { title } : {} });
  expect(response.status).toBe(201);
  return (await json(response)).id;
}

export async function connectMcp(token: string): Promise<number> {
  const response = await call("/v1/connections", { token, json: { platform: "mcp", name: "Everything", config: { url: env.TEST_MCP_URL } } });
  expect(response.status).toBe(201);
  return (await json(response)).connection_id;
}

/** Connects an OpenAI-compatible model served by the fake under `scenario` (model "fake-gpt"). */
export async function connectModel(token: string, scenario: string) {
  const response = await call("/v1/connections", {
    token,
    json: { platform: "openai", name: "Model", config: { api_key: "sk-test-0123456789abcdef", base_url: `${FAKE()}/s/${scenario}`, model: "fake-gpt" } },
  });
  expect(response.status).toBe(201);
}

/** OpenAI chat-completions answers. */
export const openai = {
  toolCalls: (calls: { id: string; name: string; args: unknown }[], usage = { prompt_tokens: 100, completion_tokens: 20 }) => ({
    body: {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1763800000,
      model: "fake-gpt",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } })),
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  }),
  text: (text: string, usage = { prompt_tokens: 150, completion_tokens: 30 }) => ({
    body: {
      id: "chatcmpl-2",
      object: "chat.completion",
      created: 1763800001,
      model: "fake-gpt",
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  }),
};

/** Anthropic messages answers. */
export const anthropic = {
  toolUse: (calls: { id: string; name: string; input: unknown }[], usage = { input_tokens: 90, output_tokens: 15 }) => ({
    body: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "fake-claude",
      content: calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.input })),
      stop_reason: "tool_use",
      stop_sequence: null,
      usage,
    },
  }),
  text: (text: string, usage = { input_tokens: 120, output_tokens: 25 }) => ({
    body: {
      id: "msg_2",
      type: "message",
      role: "assistant",
      model: "fake-claude",
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage,
    },
  }),
};
