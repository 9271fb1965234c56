import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { call, expectProblem, json, newApiKey, newUser, ORIGIN } from "../helpers/api";
import { signStripe } from "../helpers/provider-signatures";
import { newWorkflow, settled } from "../helpers/runs";

// After a delivery has started a run, this isolate keeps a copy of the agent and its workflow and
// starts the next delivery's run from it, checked against D1 only as the run's start is written.
// Each test warms that copy with a first delivery, changes the agent or its workflow through the
// API, and checks that the next delivery sees the change as if nothing had been kept.

const SECRET = "whsec_copyTestSecret0123456789abcdef";
const OTHER_SECRET = "whsec_rotatedSecret9876543210fedcba";

async function stripeAgent(steps: unknown[] = [{ id: "note", type: "set", values: { amount: "{{input.event.data.object.amount_paid}}" } }]) {
  const user = await newUser();
  const { id: keyId, key } = await newApiKey(user);
  const workflow = await newWorkflow(key, { trigger_type: "webhook", trigger_config: { verify: "stripe" }, steps });
  const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
  expect((await call(`/v1/agents/${agent.agent_id}/webhook-secret`, { method: "PUT", token: key, json: { secret: SECRET } })).status).toBe(204);
  return { user, key, keyId, workflow, agentId: agent.agent_id as string };
}

let events = 0;
const stripeEvent = (type = "invoice.paid", id = `evt_copy_${Date.now()}_${++events}`) =>
  JSON.stringify({ id, object: "event", type, data: { object: { amount_paid: 4200 + events } } });

async function deliver(agentId: string, body = stripeEvent(), secret = SECRET) {
  const signed = await signStripe({ secret, body });
  return call(`/v1/hooks/agents/${agentId}`, { body: signed.body, headers: signed.headers });
}

/** A first delivery that starts a run: from here on the isolate holds a copy of the agent. */
async function warmed(agent: { key: string; agentId: string }) {
  const first = await deliver(agent.agentId);
  expect(first.status).toBe(202);
  const run = await settled(agent.key, (await json(first)).execution_id);
  expect(run.error_message).toBeNull();
  expect(run.status).toBe("succeeded");
}

const eventsOf = async (key: string, agentId: string) => (await json(await call(`/v1/agents/${agentId}/events`, { token: key }))).data;

describe("webhook deliveries after the first (started from this isolate's copy of the agent)", () => {
  it("run with the event as input, are logged, and a run of pure steps has ended by the time the 202 is sent", async () => {
    const agent = await stripeAgent();
    await warmed(agent);
    const body = stripeEvent();
    const answer = await deliver(agent.agentId, body);
    expect(answer.status).toBe(202);
    const { execution_id } = await json(answer);
    // The start was written with the run's end: the run is over already, no waiting.
    const run = await json(await call(`/v1/executions/${execution_id}`, { token: agent.key }));
    expect(run).toMatchObject({ status: "succeeded", agent_id: agent.agentId, input_data: { event: JSON.parse(body), event_type: "invoice.paid" } });
    expect(run.steps[0].result).toEqual({ amount: JSON.parse(body).data.object.amount_paid });
    const logged = await eventsOf(agent.key, agent.agentId);
    expect(logged[0]).toMatchObject({ source: "webhook", outcome: "started", execution_id, event_id: JSON.parse(body).id, event_type: "invoice.paid" });
  });

  it("read nothing before the start: only the workflow's version stamp and the agent's own columns make the copy stale", async () => {
    const agent = await stripeAgent();
    await warmed(agent);
    // A filter written behind the API's back, without the stamp every workflow save sets: the
    // copy does not see it (a fresh read would have ignored the event).
    await env.DB.prepare("UPDATE workflows SET trigger_config = ? WHERE id = ?")
      .bind(JSON.stringify({ verify: "stripe", event_types: ["checkout.session.completed"] }), agent.workflow.id)
      .run();
    expect((await deliver(agent.agentId, stripeEvent("invoice.paid"))).status).toBe(202);
    // The same change with the stamp, as another isolate's save writes it: the copy is refused at the start, the delivery read afresh.
    await env.DB.prepare("UPDATE workflows SET updated_at = ? WHERE id = ?")
      .bind(Date.now() + 5, agent.workflow.id)
      .run();
    const ignored = await deliver(agent.agentId, stripeEvent("invoice.paid"));
    expect(ignored.status).toBe(200);
    expect(await json(ignored)).toEqual({ ignored: true });
  });

  it("run a workflow with side effects: the start is written before its first tool call, the run ends after the answer", async () => {
    const agent = await stripeAgent([
      { id: "shape", type: "set", values: { who: "{{input.event_type}}" } },
      { id: "say", type: "tool", tool: "text_template", arguments: { template: "got {{steps.shape.result.who}}" } },
    ]);
    await warmed(agent);
    const answer = await deliver(agent.agentId);
    expect(answer.status).toBe(202);
    const run = await settled(agent.key, (await json(answer)).execution_id);
    expect(run.status).toBe("succeeded");
    expect(run.steps.map((s: { step_id: string }) => s.step_id)).toEqual(["shape", "say"]);
    expect(run.steps[1].result.text).toBe("got invoice.paid");
  });

  it("answer a provider's retry of the same event id with the first run, and start nothing", async () => {
    const agent = await stripeAgent();
    await warmed(agent);
    const body = stripeEvent();
    const first = await json(await deliver(agent.agentId, body));
    const retry = await deliver(agent.agentId, body);
    expect(retry.status).toBe(200);
    expect(await json(retry)).toEqual({ duplicate: true, execution_id: first.execution_id });
    const runs = (await json(await call(`/v1/workflows/${agent.workflow.id}/executions`, { token: agent.key }))).data;
    expect(runs).toHaveLength(2);
    expect((await eventsOf(agent.key, agent.agentId))[0]).toMatchObject({ outcome: "duplicate", execution_id: first.execution_id });
  });

  it("are refused once the agent is paused, and start again once it is resumed", async () => {
    const agent = await stripeAgent();
    await warmed(agent);
    expect((await call(`/v1/agents/${agent.agentId}/pause`, { method: "POST", token: agent.key })).status).toBe(200);
    const problem = await expectProblem(await deliver(agent.agentId), 409, "conflict");
    expect(problem.detail).toContain("paused");
    expect((await call(`/v1/agents/${agent.agentId}/resume`, { method: "POST", token: agent.key })).status).toBe(200);
    expect((await deliver(agent.agentId)).status).toBe(202);
  });

  it("verify with the secret as it is now: the old one is refused once a new one is set", async () => {
    const agent = await stripeAgent();
    await warmed(agent);
    expect((await call(`/v1/agents/${agent.agentId}/webhook-secret`, { method: "PUT", token: agent.key, json: { secret: OTHER_SECRET } })).status).toBe(204);
    await expectProblem(await deliver(agent.agentId, stripeEvent(), SECRET), 401, "unauthorized");
    expect((await deliver(agent.agentId, stripeEvent(), OTHER_SECRET)).status).toBe(202);
  });

  it("follow the workflow as it is now: a new event_types filter, then new steps", async () => {
    const agent = await stripeAgent();
    await warmed(agent);
    const filtered = await call(`/v1/workflows/${agent.workflow.id}`, {
      method: "PUT",
      token: agent.key,
      json: { trigger_config: { verify: "stripe", event_types: ["checkout.session.completed"] } },
    });
    expect(filtered.status).toBe(200);
    const ignored = await deliver(agent.agentId, stripeEvent("invoice.paid"));
    expect(ignored.status).toBe(200);
    expect(await json(ignored)).toEqual({ ignored: true });

    const restepped = await call(`/v1/workflows/${agent.workflow.id}`, {
      method: "PUT",
      token: agent.key,
      json: { steps: [{ id: "changed", type: "set", values: { kind: "{{input.event_type}}" } }] },
    });
    expect(restepped.status).toBe(200);
    const answer = await deliver(agent.agentId, stripeEvent("checkout.session.completed"));
    expect(answer.status).toBe(202);
    const run = await settled(agent.key, (await json(answer)).execution_id);
    expect(run.steps).toHaveLength(1);
    expect(run.steps[0]).toMatchObject({ step_id: "changed", result: { kind: "checkout.session.completed" } });
  });

  it("are refused once the agent is deleted, or its deploying key revoked", async () => {
    const deleted = await stripeAgent();
    await warmed(deleted);
    expect((await call(`/v1/agents/${deleted.agentId}`, { method: "DELETE", token: deleted.key })).status).toBe(204);
    await expectProblem(await deliver(deleted.agentId), 401, "unauthorized");

    const revoked = await stripeAgent();
    await warmed(revoked);
    expect((await call(`/v1/auth/api-keys/${revoked.keyId}`, { method: "DELETE", token: revoked.user.accessToken })).status).toBe(204);
    const problem = await expectProblem(await deliver(revoked.agentId), 403, "forbidden");
    expect(problem.detail).toContain("revoked");
  });

  it("keep the hub scheme's one-use signatures: a replayed delivery is refused, nothing started twice", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { trigger_type: "webhook", steps: [{ id: "note", type: "set", values: { n: "{{input.n}}" } }] });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signed = async (body: string) => ({
      body,
      headers: {
        "Content-Type": "application/json",
        "X-Hub-Timestamp": timestamp,
        "X-Hub-Signature": `sha256=${await hmacHex(agent.webhook_secret, `${timestamp}.${body}`)}`,
      },
    });
    const post = (request: { body: string; headers: Record<string, string> }) => call(`/v1/hooks/agents/${agent.agent_id}`, request);
    expect((await post(await signed(JSON.stringify({ n: 1 })))).status).toBe(202);
    const second = await signed(JSON.stringify({ n: 2 }));
    expect((await post(second)).status).toBe(202);
    const replay = await expectProblem(await post(second), 401, "unauthorized");
    expect(replay.detail).toContain("already used");
    expect((await json(await call(`/v1/workflows/${workflow.id}/executions`, { token: key }))).data).toHaveLength(2);
  });

  it("are refused while the account is at its quota of unfinished runs, without spending the event", async () => {
    const agent = await stripeAgent();
    await warmed(agent);
    // One unfinished run, and a hub that allows one.
    const parked = await newWorkflow(agent.key, { steps: [{ id: "wait", type: "delay", seconds: 3600 }] });
    const waiting = await call(`/v1/workflows/${parked.id}/execute`, { token: agent.key, json: {} });
    expect(waiting.status).toBe(202);
    const body = stripeEvent();
    const signed = await signStripe({ secret: SECRET, body });
    const ctx = createExecutionContext();
    const request = new Request(`${ORIGIN}/v1/hooks/agents/${agent.agentId}`, { method: "POST", body, headers: signed.headers });
    const refused = await worker.fetch(request, { ...env, MAX_RUNNING_EXECUTIONS_PER_USER: "1" } as never, ctx);
    await waitOnExecutionContext(ctx);
    await expectProblem(refused, 409, "quota_exceeded");
    // Room again (the usual quota): the provider's retry of the same event starts its run.
    const retried = await deliver(agent.agentId, body);
    expect(retried.status).toBe(202);
    expect((await settled(agent.key, (await json(retried)).execution_id)).status).toBe("succeeded");
  });
});

async function hmacHex(secret: string, message: string) {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return [...new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message)))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
