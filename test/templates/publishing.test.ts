import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FEATURED_LEAD, rankFeatured } from "../../src/templates/service";
import type { Template } from "../../src/db/schema";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../workflows/helpers";

const publish = (key: string, workflowId: number) => call(`/v1/workflows/${workflowId}/publish`, { token: key, json: { category: "testing" } });

describe("publishing keeps only what a template needs", () => {
  it("drops trigger secrets, header values, query-string and userinfo credentials and connection ids, in branches too", async () => {
    const author = await newApiKey(await newUser());
    const workflow = await newWorkflow(author.key, {
      workflow_name: "Sync leads",
      trigger_type: "webhook",
      trigger_config: { type: "webhook", event: "lead.created", secret: "hunter2-topsecret", callback: "https://hooks.example.com/in?token=tok_private_1" },
      variables: { region: "eu", password: "swordfish", webhook_key: "whsec_abcdefghijklmnopqrstuvwxyz" },
      steps: [
        {
          id: "fetch",
          type: "tool",
          tool: "http_request",
          arguments: {
            url: "https://admin:pa55word@api.example.com/leads?token=tok_private_2&q=marketing&page={{page}}",
            headers: { "X-Auth": "s3cr3t-header-value", "Content-Type": "application/json", "X-Trace": "{{trace_id}}" },
            query: { api_key: "key_private_3", limit: 10 },
            connection_id: 4,
          },
        },
        {
          id: "branch",
          type: "condition",
          condition: { field: "steps.fetch.result.status", operator: "equals", value: 200 },
          then: [
            {
              id: "notify",
              type: "tool",
              tool: "http_request",
              arguments: { url: "https://hooks.example.com/x?sig=private_sig_4", headers: { Authorization: "Bearer private_bearer_5" }, body: { note: "ok" } },
            },
          ],
          else: [],
        },
      ],
    });
    const response = await publish(author.key, workflow.id);
    expect(response.status).toBe(201);
    const { data: template } = await json(response);
    const text = JSON.stringify(template);
    for (const secret of [
      "hunter2",
      "tok_private",
      "pa55word",
      "admin:",
      "s3cr3t",
      "key_private",
      "private_sig",
      "private_bearer",
      "swordfish",
      "whsec_",
      "connection_id",
    ]) {
      expect(text, secret).not.toContain(secret);
    }
    expect(template.trigger_config).toEqual({ type: "webhook", event: "lead.created" });
    const fetch = template.steps[0].arguments;
    expect(fetch.url).toBe("https://api.example.com/leads?q=marketing&page=%7B%7Bpage%7D%7D");
    expect(fetch.headers).toEqual({ "X-Auth": "{{header_x_auth}}", "Content-Type": "application/json", "X-Trace": "{{trace_id}}" });
    expect(fetch.query).toEqual({ limit: 10 });
    expect(template.steps[1].then[0].arguments.headers).toEqual({ Authorization: "{{header_authorization}}" });
    expect(Object.keys(template.variables).sort()).toEqual(["header_authorization", "header_x_auth", "region"]);

    // Another user's copy validates and carries no secret either.
    const user = await newApiKey(await newUser());
    const used = await call(`/v1/templates/${template.id}/use`, { token: user.key, method: "POST" });
    expect(used.status).toBe(201);
    expect(JSON.stringify(await json(used))).not.toContain("private");
  });

  it("refuses to publish a workflow holding values stored truncated", async () => {
    const author = await newApiKey(await newUser());
    const workflow = await newWorkflow(author.key, {
      steps: [{ id: "send", type: "tool", tool: "text_template", arguments: { template: "hi", values: { big: { truncated: true, preview: '{"a":' } } } }],
    });
    const problem = await expectProblem(await publish(author.key, workflow.id), 422, "validation_failed");
    expect(problem.detail).toContain("truncated");
  });

  it("answers a clear 409, never a 500, when a stored template is damaged", async () => {
    const id = `damaged-${crypto.randomUUID().slice(0, 8)}`;
    await env.DB.prepare(
      "INSERT INTO templates (id, name, description, category, difficulty, required_connections, tags, trigger_config, variables, steps) VALUES (?, 'Damaged', 'x', 'testing', 'beginner', '[]', '[]', '{}', 'null', ?)",
    )
      .bind(id, JSON.stringify({ truncated: true, preview: "[{" }))
      .run();
    const { key } = await newApiKey(await newUser());
    const problem = await expectProblem(await call(`/v1/templates/${id}/use`, { token: key, method: "POST" }), 409, "conflict");
    expect(problem.detail).toContain("damaged");
  });
});

describe("use counts and the featured list", () => {
  it("count each person once, and never the publisher", async () => {
    const author = await newApiKey(await newUser());
    const workflow = await newWorkflow(author.key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const { data: template } = await json(await publish(author.key, workflow.id));
    const use = (key: string) => call(`/v1/templates/${template.id}/use`, { token: key, method: "POST" });
    for (let i = 0; i < 3; i++) expect((await use(author.key)).status).toBe(201);
    const fan = await newApiKey(await newUser());
    for (let i = 0; i < 3; i++) expect((await use(fan.key)).status).toBe(201);
    const after = await json(await call(`/v1/templates/${template.id}`, { token: fan.key }));
    expect(after.data.use_count).toBe(1);
    // Seeded featured templates keep the top of the list.
    const featured = await json(await call("/v1/templates/featured/list", { token: fan.key }));
    const flags: boolean[] = featured.data.map((t: any) => t.featured);
    expect(flags[0]).toBe(true);
    expect(flags).toEqual([...flags].sort((a, b) => Number(b) - Number(a)));
  });

  it("let real use by many people outrank a featured template over time", () => {
    const at = (name: string, featured: boolean, useCount: number) => ({ id: name, name, featured, useCount }) as unknown as Template;
    const seeded = at("Seeded", true, 10);
    expect(rankFeatured([at("Popular", false, 10 + FEATURED_LEAD - 1), seeded]).map((t) => t.name)).toEqual(["Seeded", "Popular"]);
    expect(rankFeatured([at("Popular", false, 10 + FEATURED_LEAD + 1), seeded]).map((t) => t.name)).toEqual(["Popular", "Seeded"]);
  });
});
