import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TEMPLATES } from "../../src/templates/catalog";
import { parseToolName } from "../../src/tools/catalog";
import { validateSteps } from "../../src/workflows/steps";
import { checkedTrigger } from "../../src/workflows/triggers";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";

/** Every step, branches and loops included. */
const allSteps = (steps: any[]): any[] =>
  steps.flatMap((s) => [s, ...(s.type === "condition" ? allSteps([...s.then, ...s.else]) : s.type === "for_each" ? allSteps(s.steps) : [])]);

function platformsOf(steps: any[]): string[] {
  return allSteps(steps)
    .flatMap((s) => (s.type === "tool" ? [parseToolName(s.tool)] : []))
    .flatMap((r) => (r?.kind === "platform" ? [r.platform.id] : []));
}

describe("the template catalog", () => {
  it("has at least 25 real automations, each valid against the step schema and fully described", () => {
    expect(TEMPLATES.length).toBeGreaterThanOrEqual(25);
    expect(new Set(TEMPLATES.map((t) => t.id)).size).toBe(TEMPLATES.length);
    for (const t of TEMPLATES) {
      const { errors } = validateSteps(t.steps);
      expect(errors, t.id).toEqual([]);
      expect(["beginner", "intermediate", "advanced"], t.id).toContain(t.difficulty);
      expect(t.tags.length, t.id).toBeGreaterThan(0);
      expect(t.description.length, t.id).toBeGreaterThan(20);
      for (const [name, spec] of Object.entries(t.variables)) expect(spec.description, `${t.id}.${name}`).not.toBe("");
      // Every platform its tools use is declared as a required connection.
      for (const platform of platformsOf(t.steps as any[])) expect(t.required_connections, t.id).toContain(platform);
      // The trigger is valid as a workflow's (type and config), so using the template never fails on it.
      expect(() => checkedTrigger(t.trigger_type, t.trigger_config, 60), t.id).not.toThrow();
      // A model step needs a model provider connected.
      if (allSteps(t.steps as any[]).some((s) => s.type === "llm")) expect(t.required_connections, t.id).toContain("openai");
    }
  });

  it("uses the richer step types: approvals, model steps and loops, in at least five templates", () => {
    const using = (type: string) => TEMPLATES.filter((t) => allSteps(t.steps as any[]).some((s) => s.type === type)).map((t) => t.id);
    expect(new Set([...using("llm"), ...using("for_each"), ...using("wait_for_event")]).size).toBeGreaterThanOrEqual(5);
    expect(using("wait_for_event")).toContain("campaign-approval-before-send");
    expect(using("llm")).toContain("campaign-approval-before-send");
    expect(using("for_each")).toContain("personal-outreach-for-each-lead");
  });

  it("is stored in D1 by the seed migration, matching the code", async () => {
    const { results } = await env.DB.prepare("SELECT id, steps FROM templates WHERE author_user_id IS NULL ORDER BY id").all<{ id: string; steps: string }>();
    expect(results.map((r) => r.id)).toEqual(TEMPLATES.map((t) => t.id).sort());
    for (const row of results) expect(JSON.parse(row.steps)).toEqual(TEMPLATES.find((t) => t.id === row.id)!.steps);
  });
});

describe("template endpoints", () => {
  it("list with combinable filters in the success/data/message envelope, with or without the trailing slash", async () => {
    const { key } = await newApiKey(await newUser());
    const all = await json(await call("/v1/templates/", { token: key }));
    expect(all).toMatchObject({ success: true, message: expect.any(String) });
    expect(all.data.length).toBeGreaterThanOrEqual(25);
    expect((await json(await call("/v1/templates", { token: key }))).data.length).toBe(all.data.length);

    const leads = await json(await call("/v1/templates/?category=lead-management", { token: key }));
    expect(leads.data.length).toBeGreaterThan(0);
    expect(leads.data.every((t: any) => t.category === "lead-management")).toBe(true);
    const slackBeginner = await json(await call("/v1/templates/?connection=slack&difficulty=beginner", { token: key }));
    expect(slackBeginner.data.length).toBeGreaterThan(0);
    expect(slackBeginner.data.every((t: any) => t.required_connections.includes("slack") && t.difficulty === "beginner")).toBe(true);
    const searched = await json(await call("/v1/templates/?search=CART", { token: key }));
    expect(searched.data.map((t: any) => t.id)).toContain("abandoned-cart-reminder");
    const none = await json(await call("/v1/templates/?category=lead-management&search=birthday", { token: key }));
    expect(none).toMatchObject({ success: true, data: [] });
  });

  it("group by category and list the featured ones first", async () => {
    const { key } = await newApiKey(await newUser());
    const grouped = await json(await call("/v1/templates/categories", { token: key }));
    const total = grouped.data.reduce((n: number, g: any) => n + g.count, 0);
    expect(total).toBeGreaterThanOrEqual(25);
    for (const group of grouped.data) expect(group.templates.every((t: any) => t.category === group.category)).toBe(true);
    const featured = await json(await call("/v1/templates/featured/list", { token: key }));
    const flags = featured.data.map((t: any) => t.featured);
    expect(flags.indexOf(false) === -1 || flags.slice(flags.indexOf(false)).every((f: boolean) => !f)).toBe(true);
    expect(featured.data[0].featured).toBe(true);
  });

  it("use a template: a deep copy into the caller's workflows, the template unchanged but for its use count", async () => {
    const { key } = await newApiKey(await newUser());
    const before = (await json(await call("/v1/templates/lead-form-to-crm-and-slack", { token: key }))).data;
    const response = await call("/v1/templates/lead-form-to-crm-and-slack/use", { token: key, method: "POST" });
    expect(response.status).toBe(201);
    const { data: workflow } = await json(response);
    expect(workflow).toMatchObject({ name: before.name, steps: before.steps, variables: { sales_channel: "#sales" }, trigger_type: "webhook" });
    expect(workflow.workflow_metadata).toMatchObject({ template_id: "lead-form-to-crm-and-slack", required_connections: ["hubspot", "slack"] });
    // Changing the copy leaves the template as it was.
    await call(`/v1/workflows/${workflow.id}`, { method: "PUT", token: key, json: { steps: [{ id: "x", type: "set", values: { a: 1 } }] } });
    const after = (await json(await call("/v1/templates/lead-form-to-crm-and-slack", { token: key }))).data;
    expect(after.steps).toEqual(before.steps);
    expect(after.use_count).toBe(before.use_count + 1);
    await expectProblem(await call("/v1/templates/no-such-template/use", { token: key, method: "POST" }), 404, "not_found");
  });

  it("publish a workflow without its connection ids or secrets, visible to others, unpublished only by its publisher", async () => {
    const author = await newApiKey(await newUser());
    const other = await newApiKey(await newUser());
    const workflow = await newWorkflow(author.key, {
      workflow_name: "My lead alert",
      steps: [
        { id: "alert", type: "tool", tool: "slack_send_message", arguments: { text: "hi", connection_id: 7 } },
        {
          id: "call",
          type: "tool",
          tool: "http_request",
          arguments: { url: "https://api.example.com", headers: { Authorization: "Bearer sk-live-abcdefghijklmnop" } },
        },
      ],
      variables: { api_token: "sk-live-abcdefghijklmnop", channel: "#x" },
    });
    const response = await call(`/v1/workflows/${workflow.id}/publish`, { token: author.key, json: { category: "lead-management", tags: ["alert"] } });
    expect(response.status).toBe(201);
    const { data: template } = await json(response);
    expect(template).toMatchObject({ published_by_user: true, source_workflow_id: workflow.id, required_connections: ["slack"], tags: ["alert"] });
    expect((await json(await call(`/v1/workflows/${workflow.id}`, { token: author.key }))).is_template).toBe(true);
    expect(JSON.stringify(template)).not.toContain("sk-live");
    expect(JSON.stringify(template.steps)).not.toContain("connection_id");
    // The secret variable keeps its name, not its value; the header value becomes a variable to fill in.
    expect(template.variables).toEqual({
      api_token: { default: "", description: expect.stringContaining("not published with the template") },
      channel: { default: "#x", description: "" },
      header_authorization: { default: "", description: expect.stringContaining("Authorization header, not published with the template") },
    });

    const seen = await json(await call("/v1/templates/?search=My%20lead%20alert", { token: other.key }));
    expect(seen.data.map((t: any) => t.id)).toContain(template.id);
    await expectProblem(await call(`/v1/templates/${template.id}`, { method: "DELETE", token: other.key }), 403, "forbidden");
    await expectProblem(await call(`/v1/templates/${TEMPLATES[0]!.id}`, { method: "DELETE", token: author.key }), 403, "forbidden");
    expect((await call(`/v1/templates/${template.id}`, { method: "DELETE", token: author.key })).status).toBe(204);
    expect((await json(await call(`/v1/workflows/${workflow.id}`, { token: author.key }))).is_template).toBe(false);
    await expectProblem(await call(`/v1/templates/${template.id}`, { token: other.key }), 404, "not_found");
  });
});
