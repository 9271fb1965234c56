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
}

async function authenticatedOperations(): Promise<Operation[]> {
  const doc = await json(await call("/v1/openapi.json"));
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const scopes: string[] = (op.security ?? []).flatMap((s: any) => s.bearerAuth ?? []);
      if (scopes.length) operations.push({ method: method.toUpperCase(), path, scopes });
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
};

const fill = (path: string, ids: Record<string, string | number>) => path.replace(/\{(\w+)\}/g, (_, name: string) => String(ids[name] ?? "1"));
const send = (op: Operation, ids: Record<string, string | number>, token?: string) =>
  call(fill(op.path, ids), {
    method: op.method,
    token,
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
};

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
      connection_id: connection.id,
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
});
