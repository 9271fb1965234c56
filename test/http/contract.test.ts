import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newApp, newUser } from "../helpers/api";
import { execute, newWorkflow } from "../helpers/runs";

/**
 * Walks the OpenAPI document: every authenticated operation refuses a missing credential (401),
 * a credential without the operation's scopes (403 insufficient_scope), and another user's
 * objects (404, never 403 or 200). A route added without its scope or ownership check fails here.
 */
const ALL_SCOPES = ["data:read", "data:write", "workflow:execute", "connections:write"];

interface Operation {
  method: string;
  path: string;
  scopes: string[];
  /** The workspace role it needs (x-hub-role), or "person" for operations about the caller. */
  role: string;
}

async function authenticatedOperations(): Promise<Operation[]> {
  const doc = await json(await call("/v1/openapi.json"));
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const scopes: string[] = (op.security ?? []).flatMap((s: any) => s.bearerAuth ?? []);
      if (scopes.length) operations.push({ method: method.toUpperCase(), path, scopes, role: op["x-hub-role"] });
    }
  }
  return operations;
}

/** The smallest body each operation accepts, so a request gets past validation to the check under test. */
const BODIES: Record<string, unknown> = {
  "PUT /v1/workflows/{workflow_id}": { name: "renamed" },
  "POST /v1/workflows/{workflow_id}/execute": { input_data: {} },
  "POST /v1/workflows/{workflow_id}/publish": { category: "testing" },
  "PATCH /v1/conversations/{conversation_id}": { title: "renamed" },
  "POST /v1/conversations/{conversation_id}/messages": { content: "hello" },
  "POST /v1/conversations/{conversation_id}/validate-tool-call": { name: "uuid_generate", arguments: {} },
  "POST /v1/conversations/{conversation_id}/explain-intent": { content: "hello" },
  "POST /v1/conversations/{conversation_id}/explain-tools": { content: "hello" },
  "PUT /v1/connections/{connection_id}": { name: "renamed", status: "active", config: {} },
  "POST /v1/agents/{agent_id}/execute": {},
  "PUT /v1/agents/{agent_id}/webhook-secret": { secret: "whsec_contract_test_secret" },
  "POST /v1/executions/{execution_id}/events": { event: "approved" },
  "POST /v1/approvals/{id}/decision": { decision: "deny" },
  "POST /v1/agents/{agent_id}/evals": { cases: [{ input: "hello" }] },
  "POST /v1/workflows/{workflow_id}/executions/replay": { status: "failed" },
  "POST /v1/workflows/{workflow_id}/test": { input_data: {} },
  "PATCH /v1/workspaces/{workspace_id}": { name: "renamed" },
  "POST /v1/workspaces/{workspace_id}/members": { email: "someone@example.com", role: "viewer" },
  "PATCH /v1/workspaces/{workspace_id}/members/{user_id}": { role: "viewer" },
};

const fill = (path: string, ids: Record<string, string | number>) => path.replace(/\{(\w+)\}/g, (_, name: string) => String(ids[name] ?? "1"));
const send = (op: Operation, ids: Record<string, string | number>, token?: string, workspace?: number) =>
  call(fill(op.path, ids), {
    method: op.method,
    token,
    ...(workspace ? { headers: { "Hub-Workspace": String(workspace) } } : {}),
    ...(op.method === "GET" || op.method === "DELETE" ? {} : { json: BODIES[`${op.method} ${op.path}`] ?? {} }),
  });

/** Ids that parse (a UUID where one is expected) but name nothing. */
const PLACEHOLDER_IDS = {
  agent_id: crypto.randomUUID(),
  workflow_id: 999_999,
  conversation_id: 999_999,
  connection_id: 999_999,
  execution_id: "exe_none",
  id: 999_999,
  client_id: "ahc_none",
  template_id: "none",
  workspace_id: 999_999,
  user_id: 999_999,
};

/** A workspace's objects, one of each kind an operation can name in its path, made with `key`. */
async function objectsOf(key: string, workspace?: number) {
  const headers = workspace ? { "Hub-Workspace": String(workspace) } : undefined;
  const post = async (path: string, body: unknown) => {
    const response = await call(path, { token: key, json: body, headers });
    if (response.status >= 300) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    return json(response);
  };
  const workflow = await post("/v1/workflows", { workflow_name: "Test flow", description: "for tests", steps: [{ id: "hold", type: "delay", seconds: 600 }] });
  const execution = await post(`/v1/workflows/${workflow.id}/execute`, { input_data: {} });
  const agent = await post("/v1/agents/deploy", { workflow_id: workflow.id });
  const conversation = await post("/v1/conversations", {});
  const connection = await post("/v1/connections", {
    platform: "webhook",
    name: "Mine",
    config: { url: `${env.TEST_FAKE_URL}/s/contract/hook`, signing_secret: "a-long-enough-signing-secret" },
  });
  return {
    workflow_id: workflow.id,
    execution_id: execution.execution_id,
    agent_id: agent.agent_id,
    conversation_id: conversation.id,
    connection_id: connection.connection_id,
  };
}

describe("the API contract, operation by operation", () => {
  it("every authenticated operation answers 401 without a credential", async () => {
    const operations = await authenticatedOperations();
    expect(operations.length).toBeGreaterThan(50);
    for (const op of operations) {
      const response = await send(op, PLACEHOLDER_IDS);
      const problem = await expectProblem(response, 401, "unauthorized").catch((error) => {
        throw new Error(`${op.method} ${op.path}: ${error.message}`);
      });
      expect(problem.request_id, `${op.method} ${op.path}`).toBeTruthy();
      expect(response.headers.get("WWW-Authenticate"), `${op.method} ${op.path}`).toMatch(/^Bearer/);
    }
  });

  it("every authenticated operation answers 403 insufficient_scope to a credential without its scopes", async () => {
    const user = await newUser();
    const keys = new Map<string, string>();
    const keyWithout = async (needed: string[]) => {
      const scopes = ALL_SCOPES.filter((s) => !needed.includes(s));
      const name = scopes.join(" ");
      if (!keys.has(name)) keys.set(name, (await newApiKey(user, { name: `without ${needed.join(" ")}`, scopes })).key);
      return keys.get(name)!;
    };
    for (const op of await authenticatedOperations()) {
      const response = await send(op, PLACEHOLDER_IDS, await keyWithout(op.scopes));
      await expectProblem(response, 403, "insufficient_scope").catch((error) => {
        throw new Error(`${op.method} ${op.path}: ${error.message}`);
      });
    }
  });

  it("every operation on an object answers 404 for another user's object", async () => {
    // The owner's objects, one of each kind an operation can name in its path.
    const owner = await newUser();
    const { key, id: keyId } = await newApiKey(owner);
    const workflow = await newWorkflow(key, { steps: [{ id: "hold", type: "delay", seconds: 600 }] });
    const executionId = await execute(key, workflow.id);
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const conversation = await json(await call("/v1/conversations", { token: key, json: {} }));
    const connection = await json(
      await call("/v1/connections", {
        token: key,
        json: { platform: "webhook", name: "Mine", config: { url: `${env.TEST_FAKE_URL}/s/contract/hook`, signing_secret: "a-long-enough-signing-secret" } },
      }),
    );
    const app = await newApp(owner);
    const ids = {
      workflow_id: workflow.id,
      execution_id: executionId,
      agent_id: agent.agent_id,
      conversation_id: conversation.id,
      connection_id: connection.connection_id,
      id: keyId,
      client_id: app.client_id,
    };

    const stranger = (await newApiKey(await newUser())).key;
    const checked: string[] = [];
    for (const op of await authenticatedOperations()) {
      const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      // Templates are shared by design: anyone reads and uses them; unpublishing another's is 403.
      if (params.length === 0 || params.includes("template_id")) continue;
      const response = await send(op, ids, stranger);
      await expectProblem(response, 404, "not_found").catch((error) => {
        throw new Error(`${op.method} ${op.path}: ${error.message}`);
      });
      checked.push(`${op.method} ${op.path}`);
    }
    expect(checked.length).toBeGreaterThan(20);

    // And nothing of the owner's was touched by those calls.
    expect((await call(`/v1/workflows/${workflow.id}`, { token: key })).status).toBe(200);
    expect((await json(await call(`/v1/executions/${executionId}`, { token: key }))).status).not.toBe("cancelled");
    expect((await call(`/v1/agents/${agent.agent_id}`, { token: key })).status).toBe(200);
    expect((await call(`/v1/me`, { token: key })).status).toBe(200);
    await call(`/v1/executions/${executionId}/cancel`, { method: "POST", token: key });
  });

  it("in a team workspace, every operation answers 404 to a non-member and 403 insufficient_role to a viewer for what a viewer may not do", async () => {
    const owner = await newUser();
    const team = await json(await call("/v1/workspaces", { token: owner.accessToken, json: { name: "Contract" } }));
    const ownerKey = (await newApiKey(owner)).key;
    const viewer = await newUser();
    await call(`/v1/workspaces/${team.id}/members`, { token: owner.accessToken, json: { email: viewer.email, role: "viewer" } });
    const viewerKey = (await newApiKey(viewer)).key;
    const stranger = (await newApiKey(await newUser())).key;
    const ids = { ...PLACEHOLDER_IDS, ...(await objectsOf(ownerKey, team.id)), workspace_id: team.id, user_id: owner.id };
    const operations = await authenticatedOperations();
    expect(operations.filter((op) => !["person", "viewer", "editor", "admin", "owner"].includes(op.role)).map((op) => `${op.method} ${op.path}`)).toEqual([]);

    // Not a member: the workspace names nothing, whatever the operation.
    for (const op of operations) {
      await expectProblem(await send(op, ids, stranger, team.id), 404, "not_found").catch((error) => {
        throw new Error(`${op.method} ${op.path} as a non-member: ${error.message}`);
      });
    }

    // A viewer: refused whatever needs more than reading; never refused what reading needs.
    const refused: string[] = [];
    for (const op of operations) {
      // Operations on a workspace itself check the role the path's workspace gives (admin for changes).
      const onWorkspace = op.path.startsWith("/v1/workspaces/{workspace_id}") && op.method !== "GET";
      const needsMore = onWorkspace || (op.role !== "person" && op.role !== "viewer");
      const response = await send(op, ids, viewerKey, team.id);
      if (needsMore) {
        await expectProblem(response, 403, "insufficient_role").catch((error) => {
          throw new Error(`${op.method} ${op.path} as a viewer: ${error.message}`);
        });
        refused.push(`${op.method} ${op.path}`);
      } else {
        const body: any = response.status === 403 ? await response.clone().json() : undefined;
        expect(body?.code, `${op.method} ${op.path} as a viewer`).not.toBe("insufficient_role");
      }
    }
    expect(refused).toContain("POST /v1/workflows");
    expect(refused).toContain("DELETE /v1/workflows/{workflow_id}");
    expect(refused).toContain("POST /v1/workspaces/{workspace_id}/members");

    // Nothing of the workspace's was touched by those calls.
    const headers = { "Hub-Workspace": String(team.id) };
    for (const path of [`/v1/workflows/${ids.workflow_id}`, `/v1/agents/${ids.agent_id}`, `/v1/connections/${ids.connection_id}`]) {
      const response = await call(path, { token: ownerKey, headers });
      expect(response.status, `${path}: ${await response.clone().text()}`).toBe(200);
    }
    expect((await json(await call(`/v1/executions/${ids.execution_id}`, { token: ownerKey, headers }))).status).not.toBe("cancelled");
    const members = (await json(await call(`/v1/workspaces/${team.id}/members`, { token: ownerKey }))).data;
    expect(members.map((m: any) => m.role).sort()).toEqual(["owner", "viewer"]);
    await call(`/v1/executions/${ids.execution_id}/cancel`, { method: "POST", token: ownerKey, headers });
  });
});
