// Which custom platforms a person has is read once per request and never kept across requests
// (src/connections/custom/resolve.ts): a platform deleted or added anywhere (this isolate or another
// one, played here by writing D1 directly) is refused or accepted at the very next request. What a
// platform compiles to is kept per isolate by row id (compiled.ts), used only for rows D1 still has.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { customPlatformHeads, customPlatformsOf, forgetCustomPlatforms, loadCustomPlatform } from "../../src/connections/custom/resolve";
import { createDb } from "../../src/db/client";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { addPetstore } from "./helpers";

const connect = (key: string, platform: string) =>
  call("/v1/connections", { token: key, json: { platform, name: "Pets", config: { api_key: "special-key" } } });
const execute = (key: string, name: string) => call("/v1/tools/execute", { token: key, json: { name, arguments: { petId: 1 } } });
const toolNames = async (key: string): Promise<string[]> =>
  (await json(await call("/v1/tools?all=true", { token: key }))).tools.map((t: any) => t.name as string);

describe("finding a person's custom platforms", () => {
  it("refuses a platform's tools and connections as soon as it is deleted", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await addPetstore(key);
    expect(await toolNames(key)).toContain(`${id}_get_pet_by_id`);
    expect((await call(`/v1/platforms/${id}`, { token: key, method: "DELETE" })).status).toBe(204);
    await expectProblem(await connect(key, id), 422, "validation_failed");
    await expectProblem(await execute(key, `${id}_get_pet_by_id`), 404, "not_found");
    expect((await toolNames(key)).some((name) => name.startsWith(id))).toBe(false);
  });

  it("sees a platform deleted or added by another isolate at the next request", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    const id = await addPetstore(key);
    expect(await toolNames(key)).toContain(`${id}_get_pet_by_id`);
    // Another isolate copies the platform under a new id, then deletes the first: no forgetting reaches this one.
    const copy = "cp_copy0001";
    await env.DB.prepare(
      "INSERT INTO custom_platforms (uid, user_id, name, description, openapi_version, server_url, auth, tools, created_at) SELECT ?, user_id, name, description, openapi_version, server_url, auth, tools, created_at FROM custom_platforms WHERE uid = ?",
    )
      .bind(copy, id)
      .run();
    await env.DB.prepare("DELETE FROM custom_platforms WHERE uid = ?").bind(id).run();
    await expectProblem(await connect(key, id), 422, "validation_failed");
    await expectProblem(await execute(key, `${id}_get_pet_by_id`), 404, "not_found");
    expect((await connect(key, copy)).status).toBe(201);
    expect(await toolNames(key)).toContain(`${copy}_get_pet_by_id`);
  });

  it("reads which platforms a person has once per request context, again for a new context or after a change", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    const id = await addPetstore(key);
    const db = createDb(env.DB);
    const request = { db, workspace: { id: user.id } };
    const first = customPlatformHeads(request);
    expect(customPlatformHeads(request)).toBe(first);
    expect((await first).map((head) => head.uid)).toEqual([id]);
    const next = { db, workspace: { id: user.id } };
    expect(customPlatformHeads(next)).not.toBe(first);
    forgetCustomPlatforms(request);
    expect(customPlatformHeads(request)).not.toBe(first);
    // Another person's context finds none of them, by list or by id.
    const stranger = { db, workspace: { id: (await newUser()).id } };
    expect((await customPlatformsOf(stranger)).size).toBe(0);
    expect(await loadCustomPlatform(stranger, id)).toBeUndefined();
  });

  it("compiles a platform once per isolate: later requests reuse it while D1 still holds its row", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    const id = await addPetstore(key);
    const db = createDb(env.DB);
    const one = await loadCustomPlatform({ db, workspace: { id: user.id } }, id);
    const two = await loadCustomPlatform({ db, workspace: { id: user.id } }, id);
    expect(one).toBeDefined();
    expect(two).toBe(one);
    expect((await customPlatformsOf({ db, workspace: { id: user.id } })).get(id)).toBe(one);
    // Deleted by another isolate: the compiled copy here is never served again.
    await env.DB.prepare("DELETE FROM custom_platforms WHERE uid = ?").bind(id).run();
    expect(await loadCustomPlatform({ db, workspace: { id: user.id } }, id)).toBeUndefined();
    expect((await customPlatformsOf({ db, workspace: { id: user.id } })).size).toBe(0);
  });
});
