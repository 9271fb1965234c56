import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import worker from "../../src/index";
import { TEMPLATES } from "../../src/templates/catalog";
import { PUBLISHED_IN_LIST, listTemplates } from "../../src/templates/service";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { Browser, newEmail } from "../dashboard/browser";
import { newWorkflow } from "../helpers/runs";

const steps = [{ id: "a", type: "set", values: { x: 1 } }];

/** Published templates written straight to D1 (as many accounts would publish them), removed after the test. */
async function flood(authorId: number, rows: number, options: { name: string; useCount: number; stepsJson?: string }) {
  const prefix = `flood-${crypto.randomUUID().slice(0, 8)}`;
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO templates (id, name, description, category, difficulty, required_connections, tags, use_count, trigger_config, variables, steps, author_user_id, source_workflow_id)
     SELECT ? || '-' || i, ? || ' ' || i, 'flooded', 'testing', 'beginner', '[]', '["flood"]', ?, '{}', '{}', ?, ?, 1 FROM n`,
  )
    .bind(rows, prefix, options.name, options.useCount, options.stepsJson ?? JSON.stringify(steps), authorId)
    .run();
  return { prefix, remove: () => env.DB.prepare("DELETE FROM templates WHERE id LIKE ?").bind(`${prefix}-%`).run() };
}

describe("marketplace lists stay bounded", () => {
  it("keep every built-in template, whatever users publish and however they name it, and at most a window of published ones", async () => {
    const author = await newUser();
    const { key } = await newApiKey(await newUser());
    const publisher = (await newApiKey(await newUser())).key;
    const workflow = await newWorkflow(publisher, { workflow_name: "Quiet one", steps });
    const mine = (await json(await call(`/v1/workflows/${workflow.id}/publish`, { token: publisher, json: { category: "testing" } }))).data;
    // Names that sort before every built-in one, more of them than any list used to read.
    const flooded = await flood(author.id, 520, { name: "!!! Buy now", useCount: 0 });
    try {
      const catalogIds = TEMPLATES.map((t) => t.id).sort();
      const listed = (await json(await call("/v1/templates/", { token: key }))).data;
      expect(
        listed
          .filter((t: any) => !t.published_by_user)
          .map((t: any) => t.id)
          .sort(),
      ).toEqual(catalogIds);
      expect(listed.filter((t: any) => t.published_by_user).length).toBeLessThanOrEqual(PUBLISHED_IN_LIST);

      const grouped = (await json(await call("/v1/templates/categories", { token: key }))).data;
      const inGroups = grouped.flatMap((g: any) => g.templates);
      expect(
        inGroups
          .filter((t: any) => !t.published_by_user)
          .map((t: any) => t.id)
          .sort(),
      ).toEqual(catalogIds);
      expect(inGroups.filter((t: any) => t.published_by_user).length).toBeLessThanOrEqual(PUBLISHED_IN_LIST);

      // Outside the window for everyone else, a publisher's own templates are still listed for them.
      expect(listed.map((t: any) => t.id)).not.toContain(mine.id);
      const own = (await json(await call("/v1/templates/", { token: publisher }))).data;
      expect(own.map((t: any) => t.id)).toContain(mine.id);

      // A filter picks from the matching rows, not from a window taken before filtering.
      const digest = (await json(await call("/v1/templates/?search=signups%20digest", { token: key }))).data;
      expect(digest.map((t: any) => t.name)).toContain("Daily signups digest");

      // The dashboard and the MCP resources read summaries: no steps, the catalog whole there too.
      const summaries = await listTemplates(createDb(env.DB), {});
      expect(
        summaries
          .filter((t) => t.authorUserId === null)
          .map((t) => t.id)
          .sort(),
      ).toEqual(catalogIds);
      expect(summaries.filter((t) => t.authorUserId !== null).length).toBeLessThanOrEqual(PUBLISHED_IN_LIST);
      expect(summaries[0]).not.toHaveProperty("steps");
      expect(summaries.find((t) => t.id === "daily-signups-digest")?.stepCount).toBeGreaterThan(0);

      const browser = new Browser();
      await browser.register(newEmail());
      const html = await (await browser.request("/app/templates")).text();
      for (const name of ["Daily signups digest", "NPS detractor alert", "Abandoned cart reminder"]) expect(html).toContain(name);
    } finally {
      await flooded.remove();
    }
  });

  it("carry published steps only up to a budget of characters per answer", async () => {
    const author = await newUser();
    const { key } = await newApiKey(await newUser());
    const marker = `bulky${crypto.randomUUID().slice(0, 8)}`;
    const big = JSON.stringify([{ id: "a", type: "set", values: { text: "x".repeat(400_000) } }]);
    const flooded = await flood(author.id, 3, { name: marker, useCount: 1_000_000, stepsJson: big });
    try {
      const listed = (await json(await call(`/v1/templates/?search=${marker}`, { token: key }))).data;
      expect(listed.length).toBe(2);
      // The summaries name all three; any one is read whole on its own.
      const summaries = await listTemplates(createDb(env.DB), { search: marker });
      expect(summaries.length).toBe(3);
      const third = summaries.find((t) => !listed.some((l: any) => l.id === t.id))!;
      const alone = (await json(await call(`/v1/templates/${third.id}`, { token: key }))).data;
      expect(alone.steps[0].values.text.length).toBe(400_000);
    } finally {
      await flooded.remove();
    }
  });
});

describe("publishing", () => {
  it("is capped per account (MAX_PUBLISHED_TEMPLATES_PER_USER), republishing the same workflow included", async () => {
    const tight = { ...env, MAX_PUBLISHED_TEMPLATES_PER_USER: "2" };
    const { key } = await newApiKey(await newUser());
    const publish = async (workflowId: number) => {
      const ctx = createExecutionContext();
      const request = new Request(`http://hub.test/v1/workflows/${workflowId}/publish`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "CF-Connecting-IP": "198.51.100.78" },
        body: JSON.stringify({ category: "testing" }),
      });
      const response = await worker.fetch(request, tight as any, ctx);
      await waitOnExecutionContext(ctx);
      return response;
    };
    const workflow = await newWorkflow(key, { steps });
    const first = await json(await publish(workflow.id));
    expect((await publish(workflow.id)).status).toBe(201);
    const refused = await expectProblem(await publish(workflow.id), 409, "quota_exceeded");
    expect(refused.detail).toContain("at most 2 published templates");
    const other = await newWorkflow(key, { steps });
    await expectProblem(await publish(other.id), 409, "quota_exceeded");
    // Unpublishing frees a place.
    expect((await call(`/v1/templates/${first.data.id}`, { method: "DELETE", token: key })).status).toBe(204);
    expect((await publish(other.id)).status).toBe(201);
  });

  it("gives templates random ids and shows the source workflow to the publisher only; older ids keep working", async () => {
    const author = await newUser();
    const authorKey = (await newApiKey(author)).key;
    const other = (await newApiKey(await newUser())).key;
    const name = `Shared ${crypto.randomUUID().slice(0, 8)}`;
    const workflow = await newWorkflow(authorKey, { workflow_name: name, steps });
    const published = await json(await call(`/v1/workflows/${workflow.id}/publish`, { token: authorKey, json: { category: "testing" } }));
    const id: string = published.data.id;
    expect(id).toMatch(/^tpl-[a-z0-9_-]{16}$/);
    // Nothing in the id says who published it (the old ids were `user-<id>-…`).
    expect(id).not.toMatch(/user/);
    expect(published.data.source_workflow_id).toBe(workflow.id);

    expect((await json(await call(`/v1/templates/${id}`, { token: authorKey }))).data.source_workflow_id).toBe(workflow.id);
    expect((await json(await call(`/v1/templates/${id}`, { token: other }))).data.source_workflow_id).toBeNull();
    const seen = (await json(await call(`/v1/templates/?search=${encodeURIComponent(name)}`, { token: other }))).data;
    expect(seen).toEqual([expect.objectContaining({ id, source_workflow_id: null })]);
    const grouped = (await json(await call("/v1/templates/categories", { token: other }))).data;
    expect(grouped.flatMap((g: any) => g.templates).find((t: any) => t.id === id)).toMatchObject({ source_workflow_id: null });
    expect(JSON.stringify(seen)).not.toContain(`"source_workflow_id":${workflow.id}`);

    // A template published under the former id scheme is still found and used by its id.
    const legacy = `user-${author.id}-abc123`;
    await env.DB.prepare(
      "INSERT INTO templates (id, name, description, category, difficulty, required_connections, tags, trigger_config, variables, steps, author_user_id, source_workflow_id) VALUES (?, 'Legacy', 'x', 'testing', 'beginner', '[]', '[]', '{}', '{}', ?, ?, ?)",
    )
      .bind(legacy, JSON.stringify(steps), author.id, workflow.id)
      .run();
    expect((await json(await call(`/v1/templates/${legacy}`, { token: other }))).data).toMatchObject({ id: legacy, source_workflow_id: null });
    expect((await call(`/v1/templates/${legacy}/use`, { method: "POST", token: other })).status).toBe(201);
    expect((await call(`/v1/templates/${legacy}`, { method: "DELETE", token: authorKey })).status).toBe(204);
  });
});
