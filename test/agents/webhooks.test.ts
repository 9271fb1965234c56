import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow, settled } from "../helpers/runs";

async function hmacHex(secret: string, message: string) {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return [...new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message)))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function deployed() {
  const { key } = await newApiKey(await newUser());
  const workflow = await newWorkflow(key, {
    steps: [{ id: "greet", type: "tool", tool: "text_template", arguments: { template: "New lead {{input.email}}" } }],
  });
  const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
  return { key, agent };
}

async function signedPost(agentId: string, secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)) {
  const signature = `sha256=${await hmacHex(secret, `${timestamp}.${body}`)}`;
  return call(`/v1/hooks/agents/${agentId}`, {
    body,
    headers: { "Content-Type": "application/json", "X-Hub-Timestamp": String(timestamp), "X-Hub-Signature": signature },
  });
}

describe("agent webhooks", () => {
  it("run the agent with the JSON payload as input_data when the signature is right", async () => {
    const { key, agent } = await deployed();
    const response = await signedPost(agent.agent_id, agent.webhook_secret, JSON.stringify({ email: "ada@example.com" }));
    expect(response.status).toBe(202);
    const { execution_id } = await json(response);
    const execution = await settled(key, execution_id);
    expect(execution).toMatchObject({ status: "succeeded", agent_id: agent.agent_id, input_data: { email: "ada@example.com" } });
    expect(execution.steps[0].result.text).toBe("New lead ada@example.com");
  });

  it("refuse a wrong signature, a tampered body, a stale timestamp and a replay", async () => {
    const { agent } = await deployed();
    const body = JSON.stringify({ email: "x@example.com" });
    await expectProblem(await signedPost(agent.agent_id, "whsec_wrong", body), 401, "unauthorized");
    const now = Math.floor(Date.now() / 1000);
    const signature = `sha256=${await hmacHex(agent.webhook_secret, `${now}.${body}`)}`;
    const tampered = await call(`/v1/hooks/agents/${agent.agent_id}`, {
      body: body.replace("x@", "y@"),
      headers: { "Content-Type": "application/json", "X-Hub-Timestamp": String(now), "X-Hub-Signature": signature },
    });
    await expectProblem(tampered, 401, "unauthorized");
    const stale = await expectProblem(await signedPost(agent.agent_id, agent.webhook_secret, body, now - 301), 401, "unauthorized");
    expect(stale.detail).toContain("5 minutes");
    const first = await signedPost(agent.agent_id, agent.webhook_secret, body, now);
    expect(first.status).toBe(202);
    const replay = await expectProblem(await signedPost(agent.agent_id, agent.webhook_secret, body, now), 401, "unauthorized");
    expect(replay.detail).toContain("already used");
  });

  it("do not spend a signature on a delivery the hub refused: the sender's retry of it counts once there is room", async () => {
    const { key, agent } = await deployed();
    // One unfinished run of the same account, and a hub that allows one: the delivery is refused for the quota.
    const parked = await newWorkflow(key, { steps: [{ id: "wait", type: "delay", seconds: 3600 }] });
    expect((await call(`/v1/workflows/${parked.id}/execute`, { token: key, json: {} })).status).toBe(202);
    const body = JSON.stringify({ email: "retry@example.com" });
    const now = Math.floor(Date.now() / 1000);
    const signature = `sha256=${await hmacHex(agent.webhook_secret, `${now}.${body}`)}`;
    const delivery = () =>
      new Request(`http://hub.test/v1/hooks/agents/${agent.agent_id}`, {
        method: "POST",
        body,
        headers: { "Content-Type": "application/json", "X-Hub-Timestamp": String(now), "X-Hub-Signature": signature },
      });
    const ctx = createExecutionContext();
    const refused = await worker.fetch(delivery(), { ...env, MAX_RUNNING_EXECUTIONS_PER_USER: "1" } as never, ctx);
    await waitOnExecutionContext(ctx);
    await expectProblem(refused, 409, "quota_exceeded");
    // The provider retries the very same delivery where there is room: it starts the run, and only then is the signature spent.
    const retried = await signedPost(agent.agent_id, agent.webhook_secret, body, now);
    expect(retried.status).toBe(202);
    const replay = await expectProblem(await signedPost(agent.agent_id, agent.webhook_secret, body, now), 401, "unauthorized");
    expect(replay.detail).toContain("already used");
  });

  it("refuse a captured delivery replayed under another spelling of its signature", async () => {
    const { key, agent } = await deployed();
    const body = JSON.stringify({ email: "replay@example.com" });
    const now = Math.floor(Date.now() / 1000);
    const hex = await hmacHex(agent.webhook_secret, `${now}.${body}`);
    const send = (signature: string) =>
      call(`/v1/hooks/agents/${agent.agent_id}`, {
        body,
        headers: { "Content-Type": "application/json", "X-Hub-Timestamp": String(now), "X-Hub-Signature": signature },
      });
    const mixed = [...hex].map((ch, i) => (i % 2 ? ch.toUpperCase() : ch)).join("");
    // Any spelling is accepted once, and the first use spends the signature for all spellings.
    expect((await send(`SHA256=${hex.toUpperCase()}`)).status).toBe(202);
    for (const spelling of [`sha256=${hex}`, `SHA256=${hex}`, `sha256=${hex.toUpperCase()}`, `Sha256=${mixed}`, ` sha256=${hex} `]) {
      const replay = await expectProblem(await send(spelling), 401, "unauthorized");
      expect(replay.detail).toContain("already used");
    }
    for (const malformed of [`sha256=${hex}00`, `sha256=${hex.slice(2)}`, `sha1=${hex}`, `sha256=${hex.slice(0, -1)}g`, hex]) {
      const refused = await expectProblem(await send(malformed), 401, "unauthorized");
      expect(refused.detail).toContain("sha256=<64 hex digits>");
    }
    // One delivery, one run.
    const runs = await json(await call(`/v1/workflows/${agent.workflow_id}/executions`, { token: key }));
    expect(runs.data).toHaveLength(1);
  });

  it("do not reveal whether an agent exists", async () => {
    const body = "{}";
    const unknown = await expectProblem(await signedPost(crypto.randomUUID(), "whsec_anything", body), 401, "unauthorized");
    expect(unknown.detail).toBe("The signature is not valid.");
  });
});
