import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FEATURED_LEAD, rankFeatured } from "../../src/templates/service";
import type { Template } from "../../src/db/schema";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";

const publish = (key: string, workflowId: number) => call(`/v1/workflows/${workflowId}/publish`, { token: key, json: { category: "testing" } });

describe("publishing keeps only what a template needs", () => {
  it("drops trigger secrets, header values, query-string and userinfo credentials and connection ids, in branches too", async () => {
    const author = await newApiKey(await newUser());
    const workflow = await newWorkflow(author.key, {
      workflow_name: "Sync leads",
      trigger_type: "webhook",
      trigger_config: { event_types: ["lead.created"] },
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
    // A trigger config saved before configs were checked by type may hold anything.
    const legacy = { type: "webhook", event: "lead.created", secret: "hunter2-topsecret", callback: "https://hooks.example.com/in?token=tok_private_1" };
    await env.DB.prepare("UPDATE workflows SET trigger_config = ? WHERE id = ?").bind(JSON.stringify(legacy), workflow.id).run();
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
    // What stays is kept as written: the placeholder in the query still works.
    expect(fetch.url).toBe("https://api.example.com/leads?q=marketing&page={{page}}");
    expect(fetch.headers).toEqual({ "X-Auth": "{{header_x_auth}}", "Content-Type": "application/json", "X-Trace": "{{trace_id}}" });
    expect(fetch.query).toEqual({ api_key: "{{fetch_api_key}}", limit: 10 });
    expect(template.steps[1].then[0].arguments.headers).toEqual({ Authorization: "{{header_authorization}}" });
    expect(template.steps[1].then[0].arguments.url).toBe("https://hooks.example.com/x");
    // Every value taken out is a variable the user fills in; secret variables keep their name, not their value.
    expect(Object.keys(template.variables).sort()).toEqual(["fetch_api_key", "header_authorization", "header_x_auth", "password", "region", "webhook_key"]);
    expect(template.variables.region).toEqual({ default: "eu", description: "" });
    for (const name of ["fetch_api_key", "header_authorization", "header_x_auth", "password", "webhook_key"]) {
      expect(template.variables[name].default, name).toBe("");
      expect(template.variables[name].description, name).toContain("not published");
    }

    // Another user's copy validates, carries no secret either, and asks for the values taken out.
    const user = await newApiKey(await newUser());
    const used = await call(`/v1/templates/${template.id}/use`, { token: user.key, method: "POST" });
    expect(used.status).toBe(201);
    const { data: copy } = await json(used);
    expect(JSON.stringify(copy)).not.toContain("private");
    expect(copy.variables).toMatchObject({ header_x_auth: "", fetch_api_key: "", region: "eu" });
    expect(copy.workflow_metadata.variable_descriptions.header_x_auth).toContain("X-Auth");
  });

  it("keeps a poll or webhook trigger whole (tool, paths, emit, event_types), its arguments cleaned like a step's", async () => {
    const author = await newApiKey(await newUser());
    const poll = {
      tool: "http_request",
      arguments: { url: "https://feeds.example.com/items.json?api_key=key_private_poll&lang=en", headers: { Authorization: "Bearer private_bearer_poll" } },
      interval_seconds: 300,
      items_path: "body.items",
      id_path: "guid",
      emit: "batch",
      emit_existing: true,
    };
    const workflow = await newWorkflow(author.key, {
      trigger_type: "poll",
      trigger_config: poll,
      steps: [{ id: "a", type: "set", values: { x: "{{input.items}}" } }],
    });
    const { data: template } = await json(await publish(author.key, workflow.id));
    expect(JSON.stringify(template)).not.toContain("private");
    expect(template.trigger_type).toBe("poll");
    expect(template.trigger_config).toMatchObject({
      tool: "http_request",
      interval_seconds: 300,
      items_path: "body.items",
      id_path: "guid",
      emit: "batch",
      emit_existing: true,
    });
    expect(template.trigger_config.arguments.url).toBe("https://feeds.example.com/items.json?lang=en");
    // The copy is a valid poll trigger again: it can be used.
    const used = await call(`/v1/templates/${template.id}/use`, { token: (await newApiKey(await newUser())).key, method: "POST" });
    expect(used.status).toBe(201);

    const hook = await newWorkflow(author.key, {
      trigger_type: "webhook",
      trigger_config: { verify: "stripe", event_types: ["invoice.paid"] },
      steps: [{ id: "a", type: "set", values: { x: 1 } }],
    });
    const { data: hookTemplate } = await json(await publish(author.key, hook.id));
    expect(hookTemplate.trigger_config).toEqual({ verify: "stripe", event_types: ["invoice.paid"] });
  });

  it("keeps placeholders and ordinary values as written, and credentials out of any text", async () => {
    const author = await newApiKey(await newUser());
    const workflow = await newWorkflow(author.key, {
      workflow_name: "Weekly digest https://admin:hunter2@crm.example.com/",
      description: "Posts to https://api.example.com/digest?access_token=tok_desc_1&week=1",
      trigger_type: "schedule",
      trigger_config: { type: "cron", cron_expression: "0 9 * * 1", timezone: "Europe/Paris", signing_secret: "shh-trigger" },
      steps: [
        {
          id: "contacts",
          type: "tool",
          tool: "http_request",
          arguments: {
            url: "{{base_url}}/contacts?apiKey=ak_literal_1&limit=5&api_key={{api_key}}",
            method: "GET",
            headers: { Authorization: "Bearer {{crm_token}}", "X-Api-Key": "{{crm_key}}", Accept: "application/json" },
          },
        },
        {
          id: "remember",
          type: "tool",
          tool: "memory_store",
          arguments: { operation: "set", key: "last_digest", value: { max_tokens: 300, passenger: "ok" } },
        },
        {
          id: "compose",
          type: "tool",
          tool: "text_template",
          arguments: {
            template:
              "Report: https://reports.example.com/r/1?sig=sig_literal_2#access_token=tok_frag_3&section=2 (key sk-proj-abcdefghijklmnopqrstuvwxyz) alerts: https://hooks.slack.com/services/T1/B1/embeddedslacksecret",
            values: {
              slack_hook: "https://hooks.slack.com/services/T000/B000/slackpathsecret",
              bot: "https://api.telegram.org/bot{{telegram_token}}/sendMessage",
            },
          },
        },
      ],
    });
    const response = await publish(author.key, workflow.id);
    expect(response.status).toBe(201);
    const { data: template } = await json(response);
    const text = JSON.stringify(template);
    for (const secret of ["hunter2", "tok_desc", "shh-trigger", "ak_literal", "sig_literal", "tok_frag", "sk-proj", "slackpathsecret", "embeddedslacksecret"]) {
      expect(text, secret).not.toContain(secret);
    }
    expect(template.name).toBe("Weekly digest https://crm.example.com/");
    expect(template.description).toBe("Posts to https://api.example.com/digest?week=1");
    expect(template.trigger_config).toEqual({ type: "cron", cron_expression: "0 9 * * 1", timezone: "Europe/Paris" });
    const [contacts, remember, compose] = template.steps;
    expect(contacts.arguments).toEqual({
      url: "{{base_url}}/contacts?limit=5&api_key={{api_key}}",
      method: "GET",
      headers: { Authorization: "Bearer {{crm_token}}", "X-Api-Key": "{{crm_key}}", Accept: "application/json" },
    });
    expect(remember.arguments).toEqual({ operation: "set", key: "last_digest", value: { max_tokens: 300, passenger: "ok" } });
    expect(compose.arguments.template).toBe("Report: https://reports.example.com/r/1#section=2 (key ) alerts: ");
    expect(compose.arguments.values).toEqual({ slack_hook: "{{compose_slack_hook}}", bot: "https://api.telegram.org/bot{{telegram_token}}/sendMessage" });
    expect(template.variables).toEqual({ compose_slack_hook: { default: "", description: expect.stringContaining("not published") } });
  });

  it("takes secret-named fields out of set values and nested condition branches", async () => {
    const author = await newApiKey(await newUser());
    const workflow = await newWorkflow(author.key, {
      steps: [
        {
          id: "check",
          type: "condition",
          condition: { field: "input.kind", operator: "equals", value: "vip" },
          then: [
            {
              id: "inner",
              type: "condition",
              condition: { field: "input.score", operator: "greater_than", value: 10 },
              then: [],
              else: [{ id: "remember", type: "set", values: { db_password: "pw_nested_1", accessToken: "tok_nested_2", label: "kept" } }],
            },
          ],
          else: [
            {
              id: "note",
              type: "tool",
              tool: "text_template",
              arguments: { template: "x", values: { client_secret: "cs_nested_3", auth: { user: "u", pass: "p" } } },
            },
          ],
        },
      ],
    });
    const { data: template } = await json(await publish(author.key, workflow.id));
    expect(JSON.stringify(template)).not.toMatch(/pw_nested|tok_nested|cs_nested|"pass":"p"/);
    expect(template.steps[0].then[0].else[0].values).toEqual({
      db_password: "{{remember_db_password}}",
      accessToken: "{{remember_accesstoken}}",
      label: "kept",
    });
    expect(template.steps[0].else[0].arguments.values).toEqual({ client_secret: "{{note_client_secret}}", auth: "{{note_auth}}" });
    expect(Object.keys(template.variables).sort()).toEqual(["note_auth", "note_client_secret", "remember_accesstoken", "remember_db_password"]);
  });

  it("publishes hostile text in bounded time, leaving what holds no credential as it was", async () => {
    const author = await newApiKey(await newUser());
    // As large as a workflow may be (MAX_WORKFLOW_BYTES, 256 KiB).
    const hostile = `${"?a=".repeat(30_000)}${"{{".repeat(30_000)}${"https://x@".repeat(10_000)}`;
    const workflow = await newWorkflow(author.key, { steps: [{ id: "odd", type: "tool", tool: "text_template", arguments: { template: hostile } }] });
    const started = Date.now();
    const response = await publish(author.key, workflow.id);
    expect(response.status).toBe(201);
    expect(Date.now() - started).toBeLessThan(5_000);
    const { data: template } = await json(response);
    expect(template.steps[0].arguments.template.startsWith("?a=".repeat(30_000))).toBe(true);
    expect(template.steps[0].arguments.template).not.toContain("x@");
  });

  it("refuses to publish a workflow holding values stored truncated", async () => {
    const author = await newApiKey(await newUser());
    const workflow = await newWorkflow(author.key, {
      steps: [{ id: "send", type: "tool", tool: "text_template", arguments: { template: "hi", values: { big: { truncated: true, preview: '{"a":' } } } }],
    });
    const problem = await expectProblem(await publish(author.key, workflow.id), 422, "validation_failed");
    expect(problem.detail).toContain("truncated");
  });

  it("refuses to publish a workflow whose stored steps are no longer valid", async () => {
    const author = await newApiKey(await newUser());
    const workflow = await newWorkflow(author.key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    await env.DB.prepare("UPDATE workflows SET steps = ? WHERE id = ?")
      .bind(JSON.stringify([{ id: "a", type: "teleport" }]), workflow.id)
      .run();
    const problem = await expectProblem(await publish(author.key, workflow.id), 422, "validation_failed");
    expect(problem.detail).toContain("not valid");
    expect(problem.errors?.length).toBeGreaterThan(0);
    const mine = await json(await call("/v1/templates/", { token: author.key }));
    expect(mine.data.some((t: any) => t.source_workflow_id === workflow.id)).toBe(false);
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

  it("refuses to use a template whose steps are cut short, invalid or unreadable, and creates nothing", async () => {
    const store = async (steps: string) => {
      const id = `damaged-${crypto.randomUUID().slice(0, 8)}`;
      await env.DB.prepare(
        "INSERT INTO templates (id, name, description, category, difficulty, required_connections, tags, trigger_config, variables, steps) VALUES (?, 'Damaged', 'x', 'testing', 'beginner', '[]', '[]', '{}', '{}', ?)",
      )
        .bind(id, steps)
        .run();
      return id;
    };
    const { key } = await newApiKey(await newUser());
    const use = (id: string) => call(`/v1/templates/${id}/use`, { token: key, method: "POST" });

    const truncated = await store(
      JSON.stringify([{ id: "a", type: "tool", tool: "text_template", arguments: { template: { truncated: true, preview: "Hel" } } }]),
    );
    expect((await expectProblem(await use(truncated), 409, "conflict")).detail).toContain("truncated");
    const invalid = await store(JSON.stringify([{ id: "a", type: "teleport" }]));
    const problem = await expectProblem(await use(invalid), 409, "conflict");
    expect(problem.detail).toContain("not valid");
    expect(problem.errors?.map((e: any) => e.field)).toEqual(["steps.0.type"]);
    const unknownTool = await store(JSON.stringify([{ id: "b", type: "tool", tool: "no_such_tool", arguments: {} }]));
    expect((await expectProblem(await use(unknownTool), 409, "conflict")).errors?.map((e: any) => e.field)).toEqual(["steps.0.tool"]);
    const unreadable = await store('[{"id": "a", "type": "set", "val');
    expect((await expectProblem(await use(unreadable), 409, "conflict")).detail).toContain("damaged");
    await expectProblem(await call(`/v1/templates/${unreadable}`, { token: key }), 409, "conflict");
    // The marketplace still lists, leaving out only the row it cannot read.
    const listed = await json(await call("/v1/templates/", { token: key }));
    expect(listed.data.length).toBeGreaterThan(0);
    expect(listed.data.map((t: any) => t.id)).not.toContain(unreadable);
    expect((await call("/v1/templates/featured/list", { token: key })).status).toBe(200);

    const workflows = await json(await call("/v1/workflows", { token: key }));
    expect(workflows.data).toEqual([]);
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

  it("keep seeded templates above one that its publisher and a few people use again and again", async () => {
    const author = await newApiKey(await newUser());
    const workflow = await newWorkflow(author.key, { workflow_name: "Self-promoted", steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const { data: template } = await json(await publish(author.key, workflow.id));
    const use = (key: string) => call(`/v1/templates/${template.id}/use`, { token: key, method: "POST" });
    const fans = [await newApiKey(await newUser()), await newApiKey(await newUser())];
    // Repeated and concurrent uses by the same people count each person once.
    const statuses = await Promise.all([author, ...fans, author, ...fans, ...fans].map(({ key }) => use(key).then((r) => r.status)));
    expect(statuses.every((status) => status === 201)).toBe(true);
    const { data: after } = await json(await call(`/v1/templates/${template.id}`, { token: author.key }));
    expect(after.use_count).toBe(2);

    const { data: featured } = await json(await call("/v1/templates/featured/list", { token: author.key }));
    const seeded = featured.filter((t: any) => t.featured);
    expect(seeded.length).toBeGreaterThan(0);
    const position = featured.findIndex((t: any) => t.id === template.id);
    if (position >= 0) expect(position).toBeGreaterThanOrEqual(seeded.length);

    // Use by many people, over time, does lift it above them.
    const top = Math.max(...seeded.map((t: any) => t.use_count));
    await env.DB.prepare("UPDATE templates SET use_count = ? WHERE id = ?")
      .bind(top + FEATURED_LEAD + 1, template.id)
      .run();
    const { data: ranked } = await json(await call("/v1/templates/featured/list", { token: author.key }));
    expect(ranked[0]).toMatchObject({ id: template.id, featured: false, published_by_user: true });
    expect(Object.keys(ranked[0]).sort()).toEqual(Object.keys(ranked[1]).sort());
    expect(ranked.length).toBeLessThanOrEqual(10);
    expect((await call(`/v1/templates/${template.id}`, { token: author.key, method: "DELETE" })).status).toBe(204);
  });

  it("let real use by many people outrank a featured template over time", () => {
    const at = (name: string, featured: boolean, useCount: number) => ({ id: name, name, featured, useCount }) as unknown as Template;
    const seeded = at("Seeded", true, 10);
    expect(rankFeatured([at("Popular", false, 10 + FEATURED_LEAD - 1), seeded]).map((t) => t.name)).toEqual(["Seeded", "Popular"]);
    expect(rankFeatured([at("Popular", false, 10 + FEATURED_LEAD + 1), seeded]).map((t) => t.name)).toEqual(["Popular", "Seeded"]);
  });
});
