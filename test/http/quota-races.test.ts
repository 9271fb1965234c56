import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { MAX_APPS_PER_USER } from "../../src/auth/oauth-apps";
import { MAX_KEYS_PER_USER } from "../../src/auth/api-keys";
import { MAX_CONNECTIONS_PER_USER } from "../../src/connections/service";
import { MAX_CUSTOM_PLATFORMS_PER_USER } from "../../src/connections/custom/store";
import { petstoreDocument } from "../custom-platforms/helpers";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";

/**
 * Quotas hold under concurrency: creates sent at once must not all pass a count taken before
 * any of them inserted. Each case fires CONCURRENT creates together and checks that exactly the
 * quota's room was created and every other create was refused with 409 quota_exceeded.
 */

const CONCURRENT = 8;
let address = 0;

/** A request through the Worker with these settings (a small quota), from an address of its own. */
async function send(settings: Record<string, string>, token: string, path: string, body: unknown) {
  const ctx = createExecutionContext();
  const request = new Request(`http://hub.test${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "CF-Connecting-IP": `192.0.2.${(address++ % 200) + 20}` },
    body: JSON.stringify(body),
  });
  const response = await worker.fetch(request, { ...env, ...settings } as never, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** Fires the creates together; answers how many were created and checks that the rest were refused for the quota. */
async function race(create: (i: number) => Promise<Response>): Promise<number> {
  const responses = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => create(i)));
  let created = 0;
  for (const response of responses) {
    if (response.status === 201) created++;
    else {
      expect(response.status, await response.clone().text()).toBe(409);
      expect((await json(response)).code).toBe("quota_exceeded");
    }
  }
  return created;
}

const countOf = async (table: string, where: string, ...values: unknown[]) =>
  (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)
    .bind(...values)
    .first<{ n: number }>())!.n;

describe("quotas hold when creates arrive at once", () => {
  it("workflows (MAX_WORKFLOWS_PER_USER)", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    const created = await race((i) =>
      send({ MAX_WORKFLOWS_PER_USER: "3" }, key, "/v1/workflows", {
        workflow_name: `w${i}`,
        description: "d",
        steps: [{ id: "a", type: "set", values: { i } }],
      }),
    );
    expect(created).toBe(3);
    expect(await countOf("workflows", "user_id = ?", user.id)).toBe(3);
  });

  it("conversations (MAX_CONVERSATIONS_PER_USER)", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    expect(await race(() => send({ MAX_CONVERSATIONS_PER_USER: "2" }, key, "/v1/conversations", {}))).toBe(2);
    expect(await countOf("conversations", "user_id = ?", user.id)).toBe(2);
  });

  it("agents (MAX_AGENTS_PER_USER)", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    expect(await race(() => send({ MAX_AGENTS_PER_USER: "2" }, key, "/v1/agents/deploy", { workflow_id: workflow.id }))).toBe(2);
    expect(await countOf("agents", "user_id = ?", user.id)).toBe(2);
  });

  it("published templates (MAX_PUBLISHED_TEMPLATES_PER_USER)", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    const workflow = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const published = await race(() => send({ MAX_PUBLISHED_TEMPLATES_PER_USER: "2" }, key, `/v1/workflows/${workflow.id}/publish`, { category: "marketing" }));
    expect(published).toBe(2);
    expect(await countOf("templates", "author_user_id = ?", user.id)).toBe(2);
  });

  it("connections, API keys and OAuth apps, whose quotas are fixed: one place left, one create wins", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    // Fill each to one below its quota straight in D1.
    const fill = async (count: number, insert: (i: number) => D1PreparedStatement) => {
      for (let i = 0; i < count; i += 50) await env.DB.batch(Array.from({ length: Math.min(50, count - i) }, (_, j) => insert(i + j)));
    };
    await fill(MAX_CONNECTIONS_PER_USER - 1, (i) =>
      env.DB.prepare("INSERT INTO connections (uid, user_id, platform, name, config) VALUES (?, ?, 'webhook', ?, '{}')").bind(
        `con_fill${user.id}x${i}`,
        user.id,
        `c${i}`,
      ),
    );
    // Less the key newApiKey made.
    await fill(MAX_KEYS_PER_USER - 2, (i) =>
      env.DB.prepare("INSERT INTO api_keys (user_id, name, mode, prefix, key_hash, scopes) VALUES (?, ?, 'test', 'ahk_test_x', ?, 'data:read')").bind(
        user.id,
        `k${i}`,
        `hash-${user.id}-${i}`,
      ),
    );
    await fill(MAX_APPS_PER_USER - 1, (i) =>
      env.DB.prepare(
        "INSERT INTO oauth_apps (client_id, client_secret_hash, user_id, name, redirect_uris, scopes) VALUES (?, 'h', ?, ?, '[]', 'data:read')",
      ).bind(`ahc_fill${user.id}x${i}`, user.id, `a${i}`),
    );

    const connections = await race((i) =>
      call("/v1/connections", {
        token: key,
        json: { platform: "webhook", name: `new${i}`, config: { url: "https://hooks.example/x", signing_secret: "s3cret-s3cret" } },
      }),
    );
    expect(connections).toBe(1);
    expect(await countOf("connections", "user_id = ?", user.id)).toBe(MAX_CONNECTIONS_PER_USER);

    const keys = await race((i) => call("/v1/auth/api-keys", { token: user.accessToken, json: { name: `new${i}` } }));
    expect(keys).toBe(1);
    expect(await countOf("api_keys", "user_id = ? AND revoked_at IS NULL", user.id)).toBe(MAX_KEYS_PER_USER);

    const apps = await race((i) =>
      call("/v1/auth/apps", { token: user.accessToken, json: { name: `new${i}`, redirect_uris: ["https://app.example/callback"], scopes: ["data:read"] } }),
    );
    expect(apps).toBe(1);
    expect(await countOf("oauth_apps", "user_id = ? AND revoked_at IS NULL", user.id)).toBe(MAX_APPS_PER_USER);
  });

  it("memory_store keys (1,000 per account): one place left, one new key wins, and a held key is still replaced", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    for (let i = 0; i < 999; i += 100)
      await env.DB.batch(
        Array.from({ length: Math.min(100, 999 - i) }, (_, j) =>
          env.DB.prepare("INSERT INTO memory_entries (user_id, key, value) VALUES (?, ?, '1')").bind(user.id, `fill-${i + j}`),
        ),
      );
    const sets = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) =>
        call("/v1/tools/execute", { token: key, json: { name: "memory_store", arguments: { operation: "set", key: `new-${i}`, value: i } } }).then(json),
      ),
    );
    expect(sets.filter((r) => r.success)).toHaveLength(1);
    for (const refused of sets.filter((r) => !r.success)) expect(JSON.stringify(refused)).toContain("Memory is full");
    expect(await countOf("memory_entries", "user_id = ?", user.id)).toBe(1000);
    const replaced = await json(
      await call("/v1/tools/execute", { token: key, json: { name: "memory_store", arguments: { operation: "set", key: "fill-3", value: "again" } } }),
    );
    expect(replaced).toMatchObject({ success: true });
  });

  it("custom platforms (20 per account): one place left, one import wins", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    await env.DB.batch(
      Array.from({ length: MAX_CUSTOM_PLATFORMS_PER_USER - 1 }, (_, i) =>
        env.DB.prepare(
          "INSERT INTO custom_platforms (uid, user_id, name, description, openapi_version, server_url, auth, tools) VALUES (?, ?, ?, '', '3.1.0', 'https://api.example', '{\"kind\":\"none\"}', '[]')",
        ).bind(`cp_f${user.id}x${i}`, user.id, `p${i}`),
      ),
    );
    expect(await race(() => call("/v1/platforms", { token: key, json: { openapi: petstoreDocument() } }))).toBe(1);
    expect(await countOf("custom_platforms", "user_id = ?", user.id)).toBe(MAX_CUSTOM_PLATFORMS_PER_USER);
  });
});
