import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_AGE_MS } from "../../src/core/isolate-cache";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";

/**
 * The first page of a workflow list is kept per isolate (src/workflows/cached.ts). Changes
 * made through the hub show in the next list of the isolate that made them; a change only the
 * database shows (as one made by another isolate looks from here) shows within MAX_AGE_MS.
 */
const ONE_STEP = [{ id: "a", type: "set", values: { x: 1 } }];

async function account() {
  const { key } = await newApiKey(await newUser());
  const list = async (query = "") => {
    const response = await call(`/v1/workflows${query}`, { token: key });
    expect(response.status).toBe(200);
    return json<{ data: { id: number; name: string; is_template: boolean }[]; next_cursor: string | null }>(response);
  };
  return { key, list, names: async () => (await list()).data.map((w) => w.name) };
}

describe("workflow lists", () => {
  it("show workflows created, changed, published and deleted through the API at once", async () => {
    const me = await account();
    const first = await newWorkflow(me.key, { workflow_name: "First", steps: ONE_STEP });
    expect(await me.names()).toEqual(["First"]);

    const second = await newWorkflow(me.key, { workflow_name: "Second", steps: ONE_STEP });
    expect(await me.names()).toEqual(["Second", "First"]);

    const renamed = await call(`/v1/workflows/${second.id}`, { method: "PUT", token: me.key, json: { name: "Second, renamed" } });
    expect(renamed.status).toBe(200);
    expect(await me.names()).toEqual(["Second, renamed", "First"]);

    expect((await call(`/v1/workflows/${first.id}/publish`, { token: me.key, json: { category: "testing" } })).status).toBe(201);
    expect((await me.list()).data.find((w) => w.id === first.id)?.is_template).toBe(true);

    expect((await call(`/v1/workflows/${first.id}`, { method: "DELETE", token: me.key })).status).toBe(204);
    expect(await me.names()).toEqual(["Second, renamed"]);
  });

  it("show a change made by another isolate within the bound", { timeout: 20_000 }, async () => {
    const me = await account();
    const workflow = await newWorkflow(me.key, { workflow_name: "Before", steps: ONE_STEP });
    expect(await me.names()).toEqual(["Before"]);
    await env.DB.prepare("UPDATE workflows SET name = ? WHERE id = ?").bind("After", workflow.id).run();
    const started = Date.now();
    for (;;) {
      const names = await me.names();
      if (names[0] === "After") break;
      expect(names).toEqual(["Before"]);
      expect(Date.now() - started).toBeLessThanOrEqual(MAX_AGE_MS + 500);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(Date.now() - started).toBeLessThanOrEqual(MAX_AGE_MS + 500);
  });

  it("read later pages from the database every time", async () => {
    const me = await account();
    const oldest = await newWorkflow(me.key, { workflow_name: "Oldest", steps: ONE_STEP });
    await newWorkflow(me.key, { workflow_name: "Middle", steps: ONE_STEP });
    await newWorkflow(me.key, { workflow_name: "Newest", steps: ONE_STEP });
    const firstPage = await me.list("?limit=2");
    expect(firstPage.data.map((w) => w.name)).toEqual(["Newest", "Middle"]);
    await env.DB.prepare("UPDATE workflows SET name = ? WHERE id = ?").bind("Oldest, renamed", oldest.id).run();
    const nextPage = await me.list(`?limit=2&cursor=${firstPage.next_cursor}`);
    expect(nextPage.data.map((w) => w.name)).toEqual(["Oldest, renamed"]);
  });

  it("never show one account's workflows to another", async () => {
    const me = await account();
    await newWorkflow(me.key, { workflow_name: "Mine", steps: ONE_STEP });
    expect(await me.names()).toEqual(["Mine"]);
    const stranger = await account();
    expect(await stranger.names()).toEqual([]);
  });
});
