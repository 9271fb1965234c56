import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import worker from "../../src/index";
import { call, json } from "../helpers/api";
import { FAKE } from "../conversations/helpers";
import { newWorkflow } from "../helpers/runs";

/**
 * Connects an OpenAI-compatible model served by the fake under `scenario`, named `model`: a
 * well-known name is priced by the built-in table (gpt-4o-mini: $0.15 in, $0.60 out per million).
 */
export async function connectPricedModel(key: string, scenario: string, model = "gpt-4o-mini") {
  const response = await call("/v1/connections", {
    token: key,
    json: { platform: "openai", name: "Priced model", config: { api_key: "sk-test-usage-0123456789", base_url: `${FAKE()}/s/${scenario}`, model } },
  });
  expect(response.status).toBe(201);
}

/** Deploys a one-step workflow as an agent with `agentConfig`; answers its id. */
export async function deployAgent(key: string, agentConfig: Record<string, unknown>, steps?: unknown[]): Promise<string> {
  const workflow = await newWorkflow(key, { steps: steps ?? [{ id: "id", type: "tool", tool: "uuid_generate", arguments: {} }] });
  const response = await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: agentConfig } });
  expect(response.status).toBe(201);
  return (await json(response)).agent_id;
}

export async function agentConversation(key: string, agentId: string): Promise<number> {
  const response = await call("/v1/conversations", { token: key, json: { agent_id: agentId } });
  expect(response.status).toBe(201);
  return (await json(response)).id;
}

export async function say(key: string, conversation: number, content: string, provider?: string) {
  const response = await call(`/v1/conversations/${conversation}/messages`, { token: key, json: provider ? { content, provider } : { content } });
  expect(response.status).toBe(201);
  return json(response);
}

let address = 0;
/**
 * A request through the Worker with extra Worker vars (MODEL_PRICES), waiting for the work it
 * leaves running. Work in the request itself (a direct question, a run someone waits for) sees
 * them; a conversation's Durable Object keeps the deployment's own.
 */
export async function sendWithVars(vars: Record<string, string>, key: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const ctx = createExecutionContext();
  const request = new Request(`http://hub.test${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "CF-Connecting-IP": `203.0.113.${(address++ % 200) + 20}`, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const response = await worker.fetch(request, { ...env, ...vars } as never, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** One ledger row written straight to D1, at a chosen time (for reports over days). */
export async function ledgerRow(row: {
  userId: number;
  at: Date;
  model?: string;
  agentId?: string | null;
  conversationId?: number | null;
  workflowId?: number | null;
  executionId?: string | null;
  input: number;
  output: number;
  nanoUsd: number;
}) {
  await env.DB.prepare(
    `INSERT INTO model_usage (user_id, agent_id, conversation_id, execution_id, workflow_id, provider, model, input_tokens, output_tokens, cost_nanousd, created_at)
     VALUES (?, ?, ?, ?, ?, 'openai', ?, ?, ?, ?, ?)`,
  )
    .bind(
      row.userId,
      row.agentId ?? null,
      row.conversationId ?? null,
      row.executionId ?? null,
      row.workflowId ?? null,
      row.model ?? "gpt-4o-mini",
      row.input,
      row.output,
      row.nanoUsd,
      row.at.getTime(),
    )
    .run();
}
