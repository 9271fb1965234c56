// What the end-to-end template tests share: a user whose platform connections all point at one
// scenario of the platform fake, `use` (and deploy) of a template, runs through the deployed
// agent or the workflow, what each platform received, and a way past a long wait.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { call, json, newApiKey, newUser } from "../../helpers/api";
import { settled } from "../../helpers/runs";

export const FAKE = () => env.TEST_FAKE_URL;

/** One request the hub sent a platform, as the fake recorded it. */
export interface Sent {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: any;
  raw: string;
}

/** A fresh user with an API key and a scenario of the fake of their own. */
export async function newTenant(label: string) {
  const { key } = await newApiKey(await newUser());
  const scenario = `${label}${crypto.randomUUID().replace(/-/g, "")}`;
  return { key, scenario, base_url: `${FAKE()}/s/${scenario}` };
}

/** A connection of the user's to the fake (its `base_url` points at the scenario). */
export async function connect(key: string, platform: string, config: Record<string, unknown>): Promise<number> {
  const response = await call("/v1/connections", { token: key, json: { platform, name: `${platform} for the template`, config } });
  if (response.status !== 201) throw new Error(`connect ${platform}: ${response.status} ${await response.text()}`);
  return (await json(response)).connection_id;
}

/** `POST /v1/templates/{id}/use`: the created workflow (and `agent`, when deployed). */
export async function useTemplate(key: string, templateId: string, body: Record<string, unknown>): Promise<any> {
  const response = await call(`/v1/templates/${templateId}/use`, { token: key, json: body });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`use ${templateId}: ${response.status} ${text}`);
  return JSON.parse(text).data;
}

/** Runs a deployed agent now (`POST /v1/agents/{id}/execute`) and waits for the run to end. */
export async function runAgent(key: string, agentId: string, input: Record<string, unknown> = {}): Promise<any> {
  const response = await call(`/v1/agents/${agentId}/execute`, { token: key, json: input });
  expect(response.status).toBe(202);
  return settled(key, (await json(response)).execution_id);
}

/** Starts a deployed agent's run and returns its id without waiting. */
export async function startAgent(key: string, agentId: string, input: Record<string, unknown> = {}): Promise<string> {
  const response = await call(`/v1/agents/${agentId}/execute`, { token: key, json: input });
  expect(response.status).toBe(202);
  return (await json(response)).execution_id;
}

/** Queues the fake's next answers for the scenario, one per request in order, whatever the path. */
export async function script(scenario: string, answers: { status?: number; body: unknown; headers?: Record<string, string> }[]) {
  expect((await fetch(`${FAKE()}/__script/${scenario}`, { method: "POST", body: JSON.stringify(answers) })).status).toBe(204);
}

/** Every request the hub sent the scenario's platforms, oldest first (`any`: tests index and destructure it). */
export async function sentTo(scenario: string): Promise<any[]> {
  return (await fetch(`${FAKE()}/__requests/${scenario}`)).json();
}

/** "METHOD /path" of each request, for asserting the calls made and their order. */
export const calls = (sent: Sent[]) => sent.map((r) => `${r.method} ${r.path}`);

/** No placeholder was left unfilled in anything a platform received (path, query or body). */
export function expectNoPlaceholders(sent: Sent[]) {
  for (const r of sent) expect(`${r.path} ${JSON.stringify(r.query)} ${r.raw}`).not.toContain("{{");
}

/** Waits (bounded) until a step of the run reaches `status` (`waiting` for a delay or an event). */
export async function stepReaches(executionId: string, stepId: string, status: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await env.DB.prepare("SELECT status FROM execution_steps WHERE execution_id = ? AND step_id = ?")
      .bind(executionId, stepId)
      .first<{ status: string }>();
    if (row?.status === status) return;
    if (Date.now() > deadline) throw new Error(`step ${stepId} of ${executionId} is ${row?.status}, not ${status}`);
    await scheduler.wait(50);
  }
}

/**
 * A waiting step's time is up: its wake-up moves to the past, as if the days had gone by, and the
 * every-minute cron queues the run again (the queue's own delayed message is days away).
 */
export async function timePasses(executionId: string, stepId: string) {
  const past = Date.now() - 60_000;
  await env.DB.prepare("UPDATE execution_steps SET resume_at = ? WHERE execution_id = ? AND step_id = ?").bind(past, executionId, stepId).run();
  await env.DB.prepare("UPDATE executions SET lease_until = ? WHERE id = ?").bind(past, executionId).run();
  // What the cron's sweep does for this run (the sweep itself would pick up other files' runs,
  // which share this database): queue it again.
  await env.WORKFLOW_RUNS.send({ kind: "execution", execution_id: executionId });
}

/** An OpenAI chat completion whose answer is `content`. */
export const completion = (content: string) => ({
  body: {
    id: "chatcmpl-template",
    object: "chat.completion",
    created: 1763800000,
    model: "fake-gpt",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 },
  },
});

/** The run succeeded; otherwise the failure says which step failed and why. */
export function expectSucceeded(run: any) {
  const failed = (run.steps ?? []).filter((s: any) => s.status === "failed").map((s: any) => `${s.step_id}: ${s.error_message}`);
  expect({ status: run.status, error: run.error_message ?? null, failed }).toEqual({ status: "succeeded", error: null, failed: [] });
}
