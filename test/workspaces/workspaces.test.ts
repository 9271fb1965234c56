import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { agentStoppedReason } from "../../src/agents/service";
import { createDb } from "../../src/db/client";
import { call, expectProblem, json, newApiKey, newUser, type TestUser } from "../helpers/api";

const textStep = [{ id: "hello", type: "tool", tool: "text_template", arguments: { template: "hi {{input.name}}" } }];

/** Calls as `user` inside `workspace` (the Hub-Workspace header). */
const inWorkspace = (user: { accessToken: string } | string, workspace: number | string, path: string, init: { method?: string; json?: unknown } = {}) =>
  call(path, { ...init, token: typeof user === "string" ? user : user.accessToken, headers: { "Hub-Workspace": String(workspace) } });

async function newTeam(owner: TestUser, name = "Marketing") {
  const response = await call("/v1/workspaces", { token: owner.accessToken, json: { name } });
  expect(response.status).toBe(201);
  return json(response);
}

async function addMember(admin: TestUser, workspaceId: number, person: TestUser, role: string) {
  const response = await call(`/v1/workspaces/${workspaceId}/members`, { token: admin.accessToken, json: { email: person.email, role } });
  expect(response.status).toBe(201);
  return json(response);
}

describe("workspaces", () => {
  it("gives every person a personal workspace holding what they made before, and team workspaces they own or join", async () => {
    const ana = await newUser();
    const before = await json(await call("/v1/workflows", { token: ana.accessToken, json: { workflow_name: "Mine", description: "d", steps: textStep } }));

    const team = await newTeam(ana);
    expect(team).toMatchObject({ name: "Marketing", role: "owner", personal: false });
    const list = (await json(await call("/v1/workspaces", { token: ana.accessToken }))).data;
    expect(list.map((w: any) => [w.id, w.role, w.personal])).toEqual([
      [ana.id, "owner", true],
      [team.id, "owner", false],
    ]);

    // Without the header the personal workspace answers, with what existed before teams.
    const mine = (await json(await call("/v1/workflows", { token: ana.accessToken }))).data;
    expect(mine.map((w: any) => w.id)).toContain(before.id);
    // The team workspace starts empty, and keeps its own things.
    expect((await json(await inWorkspace(ana, team.id, "/v1/workflows"))).data).toEqual([]);
    const shared = await json(
      await inWorkspace(ana, team.id, "/v1/workflows", { method: "POST", json: { workflow_name: "Shared", description: "d", steps: textStep } }),
    );
    expect((await json(await call("/v1/workflows", { token: ana.accessToken }))).data.map((w: any) => w.id)).not.toContain(shared.id);
    expect((await json(await inWorkspace(ana, team.id, "/v1/me"))).workspace).toEqual({ id: team.id, role: "owner", personal: false });
  });

  it("lets each role do what §6.4 says, refuses the rest with 403 insufficient_role, and hides the workspace from non-members", async () => {
    const [owner, editor, viewer, stranger] = await Promise.all([newUser(), newUser(), newUser(), newUser()]);
    const team = await newTeam(owner);
    await addMember(owner, team.id, editor, "editor");
    await addMember(owner, team.id, viewer, "viewer");

    const created = await inWorkspace(editor, team.id, "/v1/workflows", {
      method: "POST",
      json: { workflow_name: "By editor", description: "d", steps: textStep },
    });
    expect(created.status).toBe(201);
    const workflow = await json(created);
    const run = await inWorkspace(editor, team.id, `/v1/workflows/${workflow.id}/execute`, { method: "POST", json: { input_data: { name: "x" } } });
    expect(run.status).toBe(202);

    // The viewer reads everything, changes nothing.
    expect((await inWorkspace(viewer, team.id, `/v1/workflows/${workflow.id}`)).status).toBe(200);
    expect((await inWorkspace(viewer, team.id, "/v1/executions")).status).toBe(200);
    const refused = await expectProblem(
      await inWorkspace(viewer, team.id, "/v1/workflows", { method: "POST", json: { workflow_name: "No", description: "d", steps: textStep } }),
      403,
      "insufficient_role",
    );
    expect(refused.detail).toMatch(/editor/);
    await expectProblem(await inWorkspace(viewer, team.id, `/v1/workflows/${workflow.id}/execute`, { method: "POST", json: {} }), 403, "insufficient_role");
    await expectProblem(await inWorkspace(viewer, team.id, `/v1/workflows/${workflow.id}`, { method: "DELETE" }), 403, "insufficient_role");

    // Editors do not manage members; admins and owners do.
    const invite = { email: stranger.email, role: "viewer" };
    await expectProblem(await call(`/v1/workspaces/${team.id}/members`, { token: editor.accessToken, json: invite }), 403, "insufficient_role");

    // A non-member learns nothing: the workspace, its members and its things are 404.
    await expectProblem(await inWorkspace(stranger, team.id, "/v1/workflows"), 404, "not_found");
    await expectProblem(await call(`/v1/workspaces/${team.id}`, { token: stranger.accessToken }), 404, "not_found");
    await expectProblem(await call(`/v1/workspaces/${team.id}/members`, { token: stranger.accessToken }), 404, "not_found");
    await expectProblem(await call(`/v1/workflows/${workflow.id}`, { token: stranger.accessToken }), 404, "not_found");
    await expectProblem(await inWorkspace(stranger, "not-a-number", "/v1/workflows"), 404, "not_found");
  });

  it("adds only people who have an account, keeps one owner, and lets the owner hand over", async () => {
    const [owner, admin, other] = await Promise.all([newUser(), newUser(), newUser()]);
    const team = await newTeam(owner);
    const nobody = await call(`/v1/workspaces/${team.id}/members`, { token: owner.accessToken, json: { email: "nobody-here@example.com", role: "editor" } });
    expect((await expectProblem(nobody, 422, "validation_failed")).errors?.[0]?.field).toBe("email");
    await addMember(owner, team.id, admin, "admin");
    await expectProblem(
      await call(`/v1/workspaces/${team.id}/members`, { token: owner.accessToken, json: { email: admin.email, role: "viewer" } }),
      409,
      "conflict",
    );
    await expectProblem(
      await call(`/v1/workspaces/${team.id}/members`, { token: owner.accessToken, json: { email: other.email, role: "owner" } }),
      422,
      "validation_failed",
    );

    // An admin adds people and changes roles, but neither demotes nor replaces the owner.
    await addMember(admin, team.id, other, "viewer");
    const promoted = await call(`/v1/workspaces/${team.id}/members/${other.id}`, { method: "PATCH", token: admin.accessToken, json: { role: "editor" } });
    expect((await json(promoted)).role).toBe("editor");
    await expectProblem(
      await call(`/v1/workspaces/${team.id}/members/${owner.id}`, { method: "PATCH", token: admin.accessToken, json: { role: "viewer" } }),
      409,
      "conflict",
    );
    await expectProblem(
      await call(`/v1/workspaces/${team.id}/members/${other.id}`, { method: "PATCH", token: admin.accessToken, json: { role: "owner" } }),
      403,
      "insufficient_role",
    );
    await expectProblem(await call(`/v1/workspaces/${team.id}/members/${owner.id}`, { method: "DELETE", token: owner.accessToken }), 409, "conflict");

    // The owner hands over and becomes an admin: still exactly one owner.
    const handed = await call(`/v1/workspaces/${team.id}/members/${admin.id}`, { method: "PATCH", token: owner.accessToken, json: { role: "owner" } });
    expect(handed.status).toBe(200);
    const members = (await json(await call(`/v1/workspaces/${team.id}/members`, { token: other.accessToken }))).data;
    expect(Object.fromEntries(members.map((m: any) => [m.user_id, m.role]))).toEqual({ [owner.id]: "admin", [admin.id]: "owner", [other.id]: "editor" });
    // Anyone may leave.
    expect((await call(`/v1/workspaces/${team.id}/members/${other.id}`, { method: "DELETE", token: other.accessToken })).status).toBe(204);
    await expectProblem(await inWorkspace(other, team.id, "/v1/workflows"), 404, "not_found");
  });

  it("takes access away at once from a removed member, keys bound to the workspace included, while their agents keep running", async () => {
    const [owner, member] = await Promise.all([newUser(), newUser()]);
    const team = await newTeam(owner);
    await addMember(owner, team.id, member, "editor");
    const bound = await newApiKey(member, { workspace_id: team.id });
    expect(bound).toMatchObject({ workspace_id: team.id });
    // A bound key acts in its workspace without the header, and only there.
    const workflow = await json(await call("/v1/workflows", { token: bound.key, json: { workflow_name: "Team flow", description: "d", steps: textStep } }));
    expect((await json(await call("/v1/workflows", { token: bound.key }))).data.map((w: any) => w.id)).toEqual([workflow.id]);
    await expectProblem(await inWorkspace(bound.key, member.id, "/v1/workflows"), 404, "not_found");
    // An agent the member deployed belongs to the workspace.
    const agent = await call("/v1/agents/deploy", { token: bound.key, json: { workflow_id: workflow.id } });
    expect(agent.status).toBe(201);
    const agentId = (await json(agent)).agent_id;

    // The key was just used (and is cached); the removal still stops it at once.
    expect((await call(`/v1/workspaces/${team.id}/members/${member.id}`, { method: "DELETE", token: owner.accessToken })).status).toBe(204);
    expect((await call("/v1/workflows", { token: bound.key })).status).toBeGreaterThanOrEqual(401);
    await expectProblem(await inWorkspace(member, team.id, "/v1/workflows"), 404, "not_found");

    // What they built stays, and acts as the workspace's: on its own (schedules, webhooks), and when run.
    const row = await env.DB.prepare("SELECT id, user_id AS userId, credential_id AS credentialId FROM agents WHERE id = ?").bind(agentId).first<any>();
    expect(row.credentialId).toBe("workspace");
    expect(await agentStoppedReason(createDb(env.DB), row)).toBeNull();
    const run = await inWorkspace(owner, team.id, `/v1/agents/${agentId}/execute`, { method: "POST", json: { name: "x" } });
    expect(run.status, await run.clone().text()).toBe(202);
  });

  it("deletes a team workspace only for its owner and only once it is empty", async () => {
    const [owner, admin] = await Promise.all([newUser(), newUser()]);
    const team = await newTeam(owner);
    await addMember(owner, team.id, admin, "admin");
    const workflow = await json(
      await inWorkspace(owner, team.id, "/v1/workflows", { method: "POST", json: { workflow_name: "Left", description: "d", steps: textStep } }),
    );
    await expectProblem(await call(`/v1/workspaces/${team.id}`, { method: "DELETE", token: admin.accessToken }), 403, "insufficient_role");
    expect((await expectProblem(await call(`/v1/workspaces/${team.id}`, { method: "DELETE", token: owner.accessToken }), 409, "conflict")).detail).toMatch(
      /1 workflows/,
    );
    expect((await inWorkspace(owner, team.id, `/v1/workflows/${workflow.id}`, { method: "DELETE" })).status).toBe(204);
    await expectProblem(await call(`/v1/workspaces/${owner.id}`, { method: "DELETE", token: owner.accessToken }), 409, "conflict");
    expect((await call(`/v1/workspaces/${team.id}`, { method: "DELETE", token: owner.accessToken })).status).toBe(204);
    await expectProblem(await call(`/v1/workspaces/${team.id}`, { token: admin.accessToken }), 404, "not_found");
  });

  it("keeps an audit trail of membership, role and key changes, newest first, readable by members only", async () => {
    const [owner, member] = await Promise.all([newUser(), newUser()]);
    const team = await newTeam(owner, "Growth");
    await addMember(owner, team.id, member, "viewer");
    await call(`/v1/workspaces/${team.id}/members/${member.id}`, { method: "PATCH", token: owner.accessToken, json: { role: "editor" } });
    const key = await newApiKey(member, { workspace_id: team.id });
    expect((await call(`/v1/auth/api-keys/${key.id}`, { method: "DELETE", token: member.accessToken })).status).toBe(204);

    const trail = await json(await call(`/v1/workspaces/${team.id}/audit`, { token: member.accessToken }));
    expect(trail.data.map((e: any) => e.action)).toEqual(["api_key.revoked", "api_key.created", "member.role_changed", "member.added", "workspace.created"]);
    expect(trail.data[2]).toMatchObject({
      actor: { user_id: owner.id, email: owner.email },
      target: { type: "member", id: String(member.id) },
      detail: { from: "viewer", to: "editor" },
    });
    expect(trail.data[0]).toMatchObject({ actor: { user_id: member.id, email: member.email }, target: { type: "api_key", id: String(key.id) } });
    expect(trail.next_cursor).toBeNull();
    await expectProblem(await call(`/v1/workspaces/${team.id}/audit`, { token: (await newUser()).accessToken }), 404, "not_found");
  });

  it("keeps a key bound to a workspace inside it: the keys it makes are bound there, and it makes no apps or workspaces", async () => {
    const [owner, member] = await Promise.all([newUser(), newUser()]);
    const team = await newTeam(owner);
    await addMember(owner, team.id, member, "viewer");
    const other = await newTeam(member, "Elsewhere");
    const bound = await newApiKey(member, { workspace_id: team.id });

    // A key it creates is bound to the same workspace, whatever it asks for.
    const made = await json(await call("/v1/auth/api-keys", { token: bound.key, json: { name: "made by a bound key" } }));
    expect(made.workspace_id).toBe(team.id);
    await expectProblem(await call("/v1/auth/api-keys", { token: bound.key, json: { name: "escape", workspace_id: other.id } }), 403, "forbidden");
    await expectProblem(await call("/v1/workflows", { token: made.key, headers: { "Hub-Workspace": String(member.id) } }), 404, "not_found");
    // It sees only keys bound where it is, and only that workspace.
    const keys = (await json(await call("/v1/auth/api-keys", { token: bound.key }))).data;
    expect(keys.every((k: any) => k.workspace_id === team.id)).toBe(true);
    expect((await json(await call("/v1/workspaces", { token: bound.key }))).data.map((w: any) => w.id)).toEqual([team.id]);
    await expectProblem(await call(`/v1/workspaces/${other.id}/members`, { token: bound.key }), 404, "not_found");
    // OAuth apps and new workspaces would act beyond it.
    await expectProblem(await call("/v1/workspaces", { token: bound.key, json: { name: "Mine" } }), 403, "forbidden");
    await expectProblem(await call("/v1/auth/apps", { token: bound.key, json: { name: "App", redirect_uris: ["https://example.com/cb"] } }), 403, "forbidden");
  });

  it("leaves the workspace's settings (policies, budget, alerts, publishing) to admins", async () => {
    const [owner, editor] = await Promise.all([newUser(), newUser()]);
    const team = await newTeam(owner);
    await addMember(owner, team.id, editor, "editor");
    const asEditor = (path: string, method: string, body?: unknown) => inWorkspace(editor, team.id, path, { method, json: body });
    await expectProblem(await asEditor("/v1/me/tool-policies", "PUT", { rules: [] }), 403, "insufficient_role");
    await expectProblem(await asEditor("/v1/me/budget", "PUT", { monthly_usd: 5 }), 403, "insufficient_role");
    await expectProblem(await asEditor("/v1/me/alerts", "DELETE"), 403, "insufficient_role");
    // Reading them is any member's.
    expect((await asEditor("/v1/me/tool-policies", "GET")).status).toBe(200);
    expect((await asEditor("/v1/me/budget", "GET")).status).toBe(200);
  });
});
