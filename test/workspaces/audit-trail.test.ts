import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { decideApproval, requestApproval } from "../../src/approvals/service";
import { delegatedContext, runtimeFor } from "../../src/core/context";
import { createDb } from "../../src/db/client";
import { AUDIT_RETENTION_DAYS, forgetOldAuditRecords } from "../../src/workspaces/audit";
import { call, expectProblem, json, newUser, type TestUser } from "../helpers/api";

const textStep = [{ id: "hello", type: "tool", tool: "text_template", arguments: { template: "hi {{input.name}}" } }];
const SIGNING_SECRET = "a-long-enough-signing-secret";

/** Calls as `user` inside `workspace` (the Hub-Workspace header). */
const inWorkspace = (user: TestUser, workspace: number, path: string, init: { method?: string; json?: unknown } = {}) =>
  call(path, { ...init, token: user.accessToken, headers: { "Hub-Workspace": String(workspace) } });

async function expectStatus(response: Response, status: number) {
  if (response.status !== status) throw new Error(`${response.status}: ${await response.text()}`);
  return response.status === 204 ? null : json(response);
}

const trailOf = async (user: TestUser, workspace: number) => (await json(await call(`/v1/workspaces/${workspace}/audit`, { token: user.accessToken }))).data;

/** An approval asked for in the workspace, as an agent's turn would ask it. */
function askApproval(workspace: number) {
  const ctx = delegatedContext(runtimeFor(env as never, { waitUntil: () => undefined }), workspace, "workspace");
  const approval = requestApproval(ctx, {
    tool: "hubspot_delete_contact",
    arguments: { contact_id: "151" },
    effect: "destructive",
    rule: { effect: "destructive", action: "ask", source: "default", index: 0 },
    ttlSeconds: 3600,
    notify: [],
  });
  return { ctx, approval };
}

describe("workspace audit trail", () => {
  it("records what an editor creates, changes and deletes, and approval decisions, with who did it and never a secret", async () => {
    const [owner, editor] = await Promise.all([newUser(), newUser()]);
    const team = await expectStatus(await call("/v1/workspaces", { token: owner.accessToken, json: { name: "Ops" } }), 201);
    await expectStatus(await call(`/v1/workspaces/${team.id}/members`, { token: owner.accessToken, json: { email: editor.email, role: "editor" } }), 201);
    const as = (path: string, init: { method?: string; json?: unknown } = {}) => inWorkspace(editor, team.id, path, init);

    const workflow = await expectStatus(
      await as("/v1/workflows", { method: "POST", json: { workflow_name: "Digest", description: "d", steps: textStep } }),
      201,
    );
    await expectStatus(await as(`/v1/workflows/${workflow.id}`, { method: "PUT", json: { name: "Daily digest", description: "d" } }), 200);
    // Refused or empty changes leave no record: a missing workflow, and a save that changes nothing.
    await expectProblem(await as("/v1/workflows/999999999", { method: "PUT", json: { name: "Nope" } }), 404, "not_found");
    await expectStatus(await as(`/v1/workflows/${workflow.id}`, { method: "PUT", json: { name: "Daily digest" } }), 200);

    const agent = await expectStatus(await as("/v1/agents/deploy", { method: "POST", json: { workflow_id: workflow.id, agent_config: {} } }), 201);
    await expectStatus(await as(`/v1/agents/${agent.agent_id}`, { method: "PATCH", json: { agent_config: { instructions: "Be brief." } } }), 200);
    await expectStatus(await as(`/v1/agents/${agent.agent_id}/pause`, { method: "POST" }), 200);
    await expectStatus(await as(`/v1/agents/${agent.agent_id}`, { method: "DELETE" }), 204);

    const config = { url: `${env.TEST_FAKE_URL}/s/audit/hook`, signing_secret: SIGNING_SECRET };
    const connection = await expectStatus(await as("/v1/connections", { method: "POST", json: { platform: "webhook", name: "Hook", config } }), 201);
    await expectStatus(
      await as(`/v1/connections/${connection.connection_id}`, { method: "PUT", json: { name: "Hook 2", status: "active", config: connection.config } }),
      200,
    );
    await expectStatus(await as(`/v1/connections/${connection.connection_id}`, { method: "DELETE" }), 204);

    // One approval decided by the editor through the API, one from a Slack button (the workspace acts).
    const first = await askApproval(team.id).approval;
    await expectStatus(await as(`/v1/approvals/${first.id}/decision`, { method: "POST", json: { decision: "approve" } }), 200);
    await expectProblem(await as(`/v1/approvals/${first.id}/decision`, { method: "POST", json: { decision: "deny" } }), 409, "conflict");
    const second = askApproval(team.id);
    await decideApproval(second.ctx, (await second.approval).id, { decision: "deny" }, "slack:U42");

    await expectStatus(await as(`/v1/workflows/${workflow.id}`, { method: "DELETE" }), 204);

    const trail = await trailOf(owner, team.id);
    expect(trail.map((entry: any) => entry.action)).toEqual([
      "workflow.deleted",
      "approval.decided",
      "approval.decided",
      "connection.deleted",
      "connection.updated",
      "connection.created",
      "agent.deleted",
      "agent.updated",
      "agent.updated",
      "agent.created",
      "workflow.updated",
      "workflow.created",
      "member.added",
      "workspace.created",
    ]);
    const byEditor = { user_id: editor.id, email: editor.email };
    const [wfDeleted, slackDecision, apiDecision, conDeleted, conUpdated, conCreated, agDeleted, paused, configured, deployed, wfUpdated, wfCreated] = trail;
    expect(wfCreated).toMatchObject({ actor: byEditor, target: { type: "workflow", id: String(workflow.id) }, detail: { name: "Digest" } });
    expect(wfUpdated).toMatchObject({
      actor: byEditor,
      target: { type: "workflow", id: String(workflow.id) },
      detail: { name: "Daily digest", fields: ["name"] },
    });
    expect(wfDeleted).toMatchObject({ actor: byEditor, target: { type: "workflow", id: String(workflow.id) }, detail: { name: "Daily digest" } });
    expect(deployed).toMatchObject({ actor: byEditor, target: { type: "agent", id: agent.agent_id }, detail: { workflow_id: workflow.id } });
    expect(configured.detail).toMatchObject({ fields: ["agent_config"] });
    expect(paused.detail).toMatchObject({ fields: ["status"], status: "paused" });
    expect(agDeleted).toMatchObject({ actor: byEditor, target: { type: "agent", id: agent.agent_id } });
    const connectionTarget = { type: "connection", id: String(connection.connection_id) };
    expect(conCreated).toMatchObject({ actor: byEditor, target: connectionTarget, detail: { name: "Hook", platform: "webhook" } });
    expect(conUpdated).toMatchObject({ target: connectionTarget, detail: { name: "Hook 2", fields: ["name"] } });
    expect(conDeleted).toMatchObject({ target: connectionTarget, detail: { name: "Hook 2", platform: "webhook" } });
    expect(apiDecision).toMatchObject({
      actor: byEditor,
      target: { type: "approval", id: first.id },
      detail: { decision: "approve", tool: "hubspot_delete_contact" },
    });
    expect(slackDecision).toMatchObject({ actor: { user_id: null, email: null }, detail: { decision: "deny", decided_by: "slack:U42" } });

    const text = JSON.stringify(trail);
    expect(text).not.toContain(SIGNING_SECRET);
    expect(text).not.toContain("/s/audit/hook");
    // The editor's own workspace saw none of it.
    expect((await trailOf(editor, editor.id)).map((entry: any) => entry.action)).not.toContain("workflow.created");
  });
});

describe("the audit trail's retention", () => {
  it("forgets records older than a year, a bounded batch per sweep, and keeps the rest", async () => {
    const owner = await newUser();
    const team = await json(await call("/v1/workspaces", { token: owner.accessToken, json: { name: "Old" } }));
    const longAgo = Date.now() - (AUDIT_RETENTION_DAYS + 1) * 86_400_000;
    await env.DB.prepare("INSERT INTO workspace_audit (workspace_id, at, action, target_type, target_id) VALUES (?, ?, 'workflow.created', 'workflow', '1')")
      .bind(team.id, longAgo)
      .run();
    expect(await forgetOldAuditRecords(createDb(env.DB))).toBeGreaterThanOrEqual(1);
    const kept = (await json(await call(`/v1/workspaces/${team.id}/audit`, { token: owner.accessToken }))).data;
    expect(kept.map((e: any) => e.action)).toEqual(["workspace.created"]);
  });
});
