// GET /v1/tools in pages (src/tools/catalog-build.ts): `limit` (default 500, at most 1,000) and
// `cursor`, `{tools, next_cursor}`. A usual catalog is one page; a page ends early once the MCP
// lists and custom declarations it read weigh 8 MiB, and never reads the sources past its end.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CATALOG_PAGE_DEFAULT, CATALOG_PAGE_MAX, CATALOG_PAGE_MAX_BYTES } from "../../src/tools/catalog-build";
import { addPetstore } from "../custom-platforms/helpers";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";

const tools = (key: string, query = "") => call(`/v1/tools${query}`, { token: key });

/** Every tool of the catalog, page by page, and how many pages it took. */
async function walk(key: string, query: string): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  let pages = 0;
  let cursor: string | null = null;
  do {
    const response = await tools(key, `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(response.status).toBe(200);
    const page: any = await json(response);
    names.push(...page.tools.map((t: any) => t.name));
    cursor = page.next_cursor;
    pages++;
  } while (cursor && pages < 100);
  return { names, pages };
}

/** An active MCP connection whose cached list (fresh, so no server is asked) is `count` tools of `bytes` each. */
async function mcpWithCachedList(userId: number, count: number, bytes: number): Promise<number> {
  const list = Array.from({ length: count }, (_, i) => ({ name: `tool_${i}`, description: "d".repeat(bytes), inputSchema: { type: "object" } }));
  const row = await env.DB.prepare(
    "INSERT INTO connections (uid, user_id, platform, name, config, status, tools_cache, tools_cached_at) VALUES (?, ?, 'mcp', 'Big', '{}', 'active', ?, ?) RETURNING id",
  )
    .bind(`con_${crypto.randomUUID()}`, userId, JSON.stringify(list), Date.now())
    .first<{ id: number }>();
  return row!.id;
}

describe("GET /v1/tools pages", () => {
  it("answers a usual catalog whole in one page, and the same tools in order across small pages", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await addPetstore(key);
    const whole = await json(await tools(key, "?all=true"));
    expect(whole.next_cursor).toBeNull();
    expect(whole.tools.length).toBeLessThan(CATALOG_PAGE_DEFAULT);
    expect(whole.tools.filter((t: any) => t.platform === id)).toHaveLength(19);
    const walked = await walk(key, "?all=true&limit=25");
    expect(walked.names).toEqual(whole.tools.map((t: any) => t.name));
    expect(walked.pages).toBe(Math.ceil(whole.tools.length / 25));
  });

  it("ends a page once the MCP lists it read pass the byte bound, and lists every tool once across pages", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    // Eight lists of 1.2 MB: 9.6 MB, more than one page reads.
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) ids.push(await mcpWithCachedList(user.id, 12, 100_000));
    const first = await json(await tools(key));
    expect(first.next_cursor).toEqual(expect.any(String));
    const mcpOnFirst = first.tools.filter((t: any) => t.source === "mcp");
    expect(mcpOnFirst.length).toBeLessThan(8 * 12);
    expect(JSON.stringify(first).length).toBeLessThan(CATALOG_PAGE_MAX_BYTES + 1_300_000);
    const walked = await walk(key, "?limit=1000");
    expect(walked.pages).toBeGreaterThan(1);
    const mcp = walked.names.filter((name) => name.startsWith("mcp_"));
    expect(mcp).toEqual(ids.flatMap((id) => Array.from({ length: 12 }, (_, i) => `mcp_${id}_tool_${i}`)));
  });

  it("reads no source past the page: a platform whose declarations cannot be read does not stop the pages before it", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    // Older than the Petstore, so after it in the catalog (custom platforms are listed newest first).
    await env.DB.prepare(
      `INSERT INTO custom_platforms (uid, user_id, name, description, openapi_version, server_url, auth, tools) VALUES (?, ?, 'Unreadable', '', '3.1.0', 'https://api.example.com', '{"kind":"none"}', 'not json')`,
    )
      .bind(`cp_${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`, user.id)
      .run();
    const id = await addPetstore(key);
    const { key: other } = await newApiKey(await newUser());
    const withoutCustom = (await json(await tools(other, "?all=true"))).tools.length;
    const page = await tools(key, `?all=true&limit=${withoutCustom + 19}`);
    expect(page.status).toBe(200);
    const body = await json(page);
    expect(body.tools.at(-1).name).toMatch(new RegExp(`^${id}_`));
    expect(body.next_cursor).toEqual(expect.any(String));
  });

  it("refuses a limit past the maximum and a cursor it did not give", async () => {
    const { key } = await newApiKey(await newUser());
    await expectProblem(await tools(key, `?limit=${CATALOG_PAGE_MAX + 1}`), 422, "validation_failed");
    await expectProblem(await tools(key, "?cursor=bm90IGEgY3Vyc29y"), 422, "validation_failed");
  });
});
