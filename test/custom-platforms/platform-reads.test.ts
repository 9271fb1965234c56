// What a request reads of a person's custom platforms (src/connections/custom/resolve.ts,
// store.ts, connections/platform-list.ts): a tool call or a connection reads the one platform it
// uses, lists read no declarations, and the platforms list is paged by size. A platform whose
// stored declarations cannot be read (written straight to D1 here) shows which requests read it.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PLATFORMS } from "../../src/connections/platforms";
import { Browser, newEmail } from "../dashboard/browser";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { addPetstore } from "./helpers";

/** A platform of the user's whose `tools` column is not JSON: any request that reads it fails. */
async function unreadablePlatform(userId: number): Promise<string> {
  const uid = `cp_${Math.random().toString(36).slice(2, 10).padEnd(8, "0")}`;
  await env.DB.prepare(
    `INSERT INTO custom_platforms (uid, user_id, name, description, openapi_version, server_url, auth, tools) VALUES (?, ?, 'Unreadable', '', '3.1.0', 'https://api.example.com', '{"kind":"none"}', 'not json')`,
  )
    .bind(uid, userId)
    .run();
  return uid;
}

describe("a request reads only the custom platforms it uses", () => {
  it("calls one platform's tool and connects to it while another platform's declarations are unreadable", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    const id = await addPetstore(key);
    await unreadablePlatform(user.id);
    // Found, and refused only for want of a connection.
    await expectProblem(
      await call("/v1/tools/execute", { token: key, json: { name: `${id}_get_pet_by_id`, arguments: { petId: 1 } } }),
      409,
      "tool_unavailable",
    );
    const connected = await call("/v1/connections", { token: key, json: { platform: id, name: "Pets", config: { api_key: "special-key" } } });
    expect(connected.status).toBe(201);
    expect((await call(`/v1/connections/${(await json(connected)).connection_id}`, { token: key })).status).toBe(200);
  });

  it("lists platforms with their tool counts without reading any declarations", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    const id = await addPetstore(key);
    const unreadable = await unreadablePlatform(user.id);
    const listed = await json(await call("/v1/platforms", { token: key }));
    expect(listed.data.map((p: any) => [p.platform_id, p.tool_count])).toEqual([
      [unreadable, 0],
      [id, 19],
    ]);
    expect(listed.data[1]).not.toHaveProperty("tools");
    expect(listed.data[1]).toMatchObject({ auth_kind: "api_key", secret_fields: ["api_key"] });
    // One platform, read whole, still has its tools.
    const one = await json(await call(`/v1/platforms/${id}`, { token: key }));
    expect(one).toMatchObject({ tool_count: 19 });
    expect(one.tools).toHaveLength(19);
  });

  it("opens a tool's dashboard page reading that tool alone, not every platform", async () => {
    const browser = new Browser();
    await browser.register(newEmail());
    const key = await browser.apiKey();
    const me = await json(await call("/v1/me", { token: key }));
    await unreadablePlatform(me.id);
    const id = await addPetstore(key);
    expect((await call("/v1/connections", { token: key, json: { platform: id, name: "Pets", config: { api_key: "special-key" } } })).status).toBe(201);
    const builtin = await browser.request("/app/tools/math_evaluate");
    expect(builtin.status).toBe(200);
    const custom = await browser.request(`/app/tools/${id}_get_pet_by_id`);
    expect(custom.status).toBe(200);
    expect(await custom.text()).toContain("petId");
    expect((await browser.request(`/app/tools/${id}_no_such_operation`)).status).toBe(404);
  });
});

describe("GET /v1/connections/platforms", () => {
  it("pages declared then custom platforms, ending a page once its custom platforms are large", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    const id = await addPetstore(key);
    // Four copies that say they are 3 MB each: a page holds the custom platforms up to 8 MiB.
    for (let i = 0; i < 4; i++)
      await env.DB.prepare(
        "INSERT INTO custom_platforms (uid, user_id, name, description, openapi_version, server_url, auth, tools, tool_count, tools_bytes) SELECT ?, user_id, name, description, openapi_version, server_url, auth, tools, tool_count, 3000000 FROM custom_platforms WHERE uid = ?",
      )
        .bind(`cp_large00${i}`, id)
        .run();
    const first = await json(await call("/v1/connections/platforms", { token: key }));
    expect(first.data.slice(0, PLATFORMS.length).map((p: any) => p.id)).toEqual(PLATFORMS.map((p) => p.id));
    expect(first.data.slice(PLATFORMS.length).map((p: any) => p.id)).toEqual(["cp_large003", "cp_large002", "cp_large001"]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await json(await call(`/v1/connections/platforms?cursor=${first.next_cursor}`, { token: key }));
    expect(second.data.map((p: any) => p.id)).toEqual(["cp_large000", id]);
    expect(second.next_cursor).toBeNull();
    expect(second.data[1].tools).toHaveLength(19);

    // Small pages walk the same list.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await json(await call(`/v1/connections/platforms?limit=7${cursor ? `&cursor=${cursor}` : ""}`, { token: key }));
      expect(page.data.length).toBeLessThanOrEqual(7);
      seen.push(...page.data.map((p: any) => p.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...first.data, ...second.data].map((p: any) => p.id));
    await expectProblem(await call("/v1/connections/platforms?cursor=nonsense", { token: key }), 422, "validation_failed");
  });
});
