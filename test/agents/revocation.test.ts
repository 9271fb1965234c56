import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newApp, newUser } from "../helpers/api";
import { execute, newWorkflow, settled } from "../helpers/runs";

async function hmacHex(secret: string, message: string) {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return [...new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message)))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const ALL_SCOPES = ["data:read", "data:write", "workflow:execute"];
const runsOf = async (agentId: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM executions WHERE agent_id = ?").bind(agentId).first<{ n: number }>())!.n;

async function until(check: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await scheduler.wait(50);
  }
}

/** Deploys a one-step workflow with `token` and schedules it every second. */
async function scheduledAgent(token: string) {
  const workflow = await newWorkflow(token, { steps: [{ id: "id", type: "tool", tool: "uuid_generate", arguments: {} }] });
  const agent = await json(await call("/v1/agents/deploy", { token, json: { workflow_id: workflow.id } }));
  const scheduled = await call("/v1/agents/schedule", {
    token,
    json: { agent_id: agent.agent_id, schedule_config: { type: "interval", interval_seconds: 1 } },
  });
  expect(scheduled.status).toBe(200);
  return agent;
}

/** Asserts that the agent has stopped: no new runs over a few intervals, and the reason shown. */
async function expectStopped(owner: string, agentId: string, reason: RegExp) {
  await until(async () => reason.test((await json(await call(`/v1/agents/${agentId}`, { token: owner }))).monitoring.last_error ?? ""), 5_000);
  const runs = await runsOf(agentId);
  await scheduler.wait(2500);
  expect(await runsOf(agentId)).toBe(runs);
}

describe("agents act with the credential that deployed them", () => {
  it("an agent deployed with an API key stops within seconds of the key's revocation", async () => {
    const user = await newUser();
    const deployer = await newApiKey(user, { name: "deployer" });
    const agent = await scheduledAgent(deployer.key);
    await until(async () => (await runsOf(agent.agent_id)) >= 1);

    const revoked = await call(`/v1/auth/api-keys/${deployer.id}`, { method: "DELETE", token: user.accessToken });
    expect(revoked.status).toBe(204);
    await expectStopped(user.accessToken, agent.agent_id, /API key it runs with was revoked/);
    // Its webhook refuses events too, even correctly signed ones.
    const body = JSON.stringify({ lead: "ada@example.com" });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = `sha256=${await hmacHex(agent.webhook_secret, `${timestamp}.${body}`)}`;
    const hook = await call(`/v1/hooks/agents/${agent.agent_id}`, {
      body,
      headers: { "Content-Type": "application/json", "X-Hub-Timestamp": String(timestamp), "X-Hub-Signature": signature },
    });
    const problem = await expectProblem(hook, 403, "forbidden");
    expect(problem.detail).toContain("API key it runs with was revoked");
    await call(`/v1/agents/${agent.agent_id}/schedule`, { method: "DELETE", token: user.accessToken });
  }, 30_000);

  it("a run waiting on a delay stops before its next tool call once its key is revoked", async () => {
    const user = await newUser();
    const runner = await newApiKey(user, { name: "runner" });
    const workflow = await newWorkflow(runner.key, {
      steps: [
        { id: "wait", type: "delay", seconds: 1 },
        { id: "side_effect", type: "tool", tool: "uuid_generate", arguments: {} },
      ],
    });
    const id = await execute(runner.key, workflow.id);
    expect((await call(`/v1/auth/api-keys/${runner.id}`, { method: "DELETE", token: user.accessToken })).status).toBe(204);
    const execution = await settled(user.accessToken, id);
    expect(execution).toMatchObject({ status: "failed", failed_step_id: "side_effect" });
    expect(execution.error_message).toContain('stopped before step "side_effect": the API key it runs with was revoked');
    expect(execution.steps.map((s: any) => s.step_id)).toEqual(["wait"]);
  });

  it("an agent deployed by an OAuth app stops when the app is deleted", async () => {
    const user = await newUser();
    const app = await newApp(user, { scopes: ALL_SCOPES });
    const issued = await call("/v1/auth/token", {
      form: { grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret, scope: ALL_SCOPES.join(" ") },
    });
    const { access_token } = await json(issued);
    const agent = await scheduledAgent(access_token);
    await until(async () => (await runsOf(agent.agent_id)) >= 1);

    expect((await call(`/v1/auth/apps/${app.client_id}`, { method: "DELETE", token: user.accessToken })).status).toBe(204);
    await expectStopped(user.accessToken, agent.agent_id, /OAuth app it runs with was deleted/);
    await call(`/v1/agents/${agent.agent_id}/schedule`, { method: "DELETE", token: user.accessToken });
  }, 30_000);

  it("an agent deployed with a login belongs to the user and keeps running after logout", async () => {
    const user = await newUser();
    const agent = await scheduledAgent(user.accessToken);
    expect((await call("/v1/auth/logout", { method: "POST", token: user.accessToken })).status).toBe(204);
    const { key } = await newApiKey({
      ...user,
      accessToken: (await json(await call("/v1/auth/login", { json: { email: user.email, password: user.password } }))).access_token,
    });
    const before = await runsOf(agent.agent_id);
    await until(async () => (await runsOf(agent.agent_id)) >= before + 2);
    const details = await json(await call(`/v1/agents/${agent.agent_id}`, { token: key }));
    expect(details.monitoring.last_error).toBeNull();
    await call(`/v1/agents/${agent.agent_id}/schedule`, { method: "DELETE", token: key });
  }, 30_000);
});
