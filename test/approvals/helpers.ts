import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { type ApprovalRequest, requestApproval } from "../../src/approvals/service";
import type { ApprovalView } from "../../src/approvals/present";
import { type ServiceContext, delegatedContext, runtimeFor } from "../../src/core/context";
import { ORIGIN, call, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";

export const FAKE = () => env.TEST_FAKE_URL;

/** A scenario of the platform fake of its own (its requests apart from every other test's). */
export const scenarioName = (label: string) => `approvals-${label}-${crypto.randomUUID().slice(0, 8)}`;

/** What the fake recorded for a scenario, oldest first. */
export async function fakeRequests(scenario: string): Promise<{ method: string; path: string; headers: Record<string, string>; body: any; raw: string }[]> {
  return (await fetch(`${FAKE()}/__requests/${scenario}`)).json();
}

/** Scripts the fake's next answers for a scenario (a Slack failure, say). */
export async function scriptFake(scenario: string, answers: { status?: number; body: unknown }[]): Promise<void> {
  expect((await fetch(`${FAKE()}/__script/${scenario}`, { method: "POST", body: JSON.stringify(answers) })).status).toBe(204);
}

export interface Owner {
  userId: number;
  key: string;
  agentId: string;
  /** The agent's webhook secret, as its deploy answered it. */
  webhookSecret: string;
  /** A context like a turn's, whose background work (the channels) `settle` waits for. */
  ctx: ServiceContext;
  settle(): Promise<void>;
}

/** A user with a deployed agent (approvals name it), and a context for asking approvals as its turns would. */
export async function newOwner(vars: Record<string, string> = {}): Promise<Owner> {
  const user = await newUser();
  const { key } = await newApiKey(user);
  const workflow = await newWorkflow(key, { workflow_name: "Weekly cleanup", steps: [{ id: "id", type: "tool", tool: "uuid_generate", arguments: {} }] });
  const deployed = await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: {} } });
  expect(deployed.status).toBe(201);
  const agent = await json(deployed);
  const pending: Promise<unknown>[] = [];
  const runtime = runtimeFor({ ...env, ...vars } as never, { waitUntil: (work) => void pending.push(work) });
  return {
    userId: user.id,
    key,
    agentId: agent.agent_id,
    webhookSecret: agent.webhook_secret,
    ctx: delegatedContext(runtime, user.id, "key_0"),
    async settle() {
      // Background work may start more (an announcement that finds its approval decided settles it).
      while (pending.length) await Promise.allSettled(pending.splice(0));
    },
  };
}

/** Creates a connection through the API; answers its id. */
export async function newConnection(key: string, platform: string, config: Record<string, unknown>): Promise<number> {
  const response = await call("/v1/connections", { token: key, json: { platform, name: `${platform} for approvals`, config } });
  if (response.status !== 201) throw new Error(`connection: ${response.status} ${await response.text()}`);
  return (await json(response)).connection_id;
}

/** Asks for an approval of a destructive call as an agent's turn would, and waits until its channels were told. */
export async function askApproval(owner: Owner, notify: ApprovalRequest["notify"], extra: Partial<ApprovalRequest> = {}): Promise<ApprovalView> {
  const approval = await requestApproval(owner.ctx, {
    tool: "hubspot_delete_contact",
    arguments: { contact_id: "151", reason: "duplicate <of 152> & stale" },
    effect: "destructive",
    rule: { effect: "destructive", action: "ask", source: "default", index: 0 },
    agentId: owner.agentId,
    ttlSeconds: 3600,
    notify,
    origin: ORIGIN,
    ...extra,
  });
  await owner.settle();
  return approval;
}

export async function approvalOf(owner: Owner, id: string): Promise<ApprovalView> {
  const response = await call(`/v1/approvals/${id}`, { token: owner.key });
  expect(response.status).toBe(200);
  return json(response);
}

/** Polls (bounded) until `find` sees what it looks for in the scenario's requests: work the hub does after answering. */
export async function eventually<T>(find: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
