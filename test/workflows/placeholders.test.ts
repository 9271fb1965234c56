import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { substitute } from "../../src/lib/template";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, settled } from "../helpers/runs";

const greeting = [{ id: "greet", type: "set", values: { text: "Welcome aboard, {{input.first_name}}!" } }];

describe("placeholders", () => {
  it("a placeholder with no value and no default fails its step, naming it; a default or a value lets it run", async () => {
    const { key } = await newApiKey(await newUser());
    const strict = await newWorkflow(key, { steps: greeting });
    const failed = await settled(key, await execute(key, strict.id, { email: "ada@example.com" }));
    expect(failed.status).toBe("failed");
    expect(failed.steps[0].error_message).toContain('{{input.first_name}} has no value; add | default: "…" to allow that');

    const ok = await settled(key, await execute(key, strict.id, { first_name: "Ada" }));
    expect(ok.steps[0].result).toEqual({ text: "Welcome aboard, Ada!" });

    const withDefault = await newWorkflow(key, {
      steps: [{ id: "greet", type: "set", values: { text: 'Welcome aboard, {{input.first_name | default: "there" | trim}}!', n: "{{input.items | length}}" } }],
    });
    const defaulted = await settled(key, await execute(key, withDefault.id, { first_name: "", items: [1, 2, 3] }));
    expect(defaulted.steps[0].result).toEqual({ text: "Welcome aboard, there!", n: 3 });
  });

  it("workflows saved before placeholders were strict keep leaving them as written; a new save of their settings keeps that", async () => {
    const { key } = await newApiKey(await newUser());
    const legacy = await newWorkflow(key, { steps: greeting });
    // What the migration did to every workflow saved before.
    await env.DB.prepare("UPDATE workflows SET settings = json_set(settings, '$.strict_placeholders', json('false')) WHERE id = ?").bind(legacy.id).run();
    const run = await settled(key, await execute(key, legacy.id, {}));
    expect(run.status).toBe("succeeded");
    expect(run.steps[0].result).toEqual({ text: "Welcome aboard, {{input.first_name}}!" });

    const updated = await json(await call(`/v1/workflows/${legacy.id}`, { method: "PUT", token: key, json: { settings: { concurrency: 2 } } }));
    expect(updated.settings).toEqual({ concurrency: 2, strict_placeholders: false });
    const strictNow = await json(await call(`/v1/workflows/${legacy.id}`, { method: "PUT", token: key, json: { settings: { strict_placeholders: true } } }));
    expect(strictNow.settings).toEqual({ strict_placeholders: true });
    expect((await settled(key, await execute(key, legacy.id, {}))).status).toBe("failed");
  });

  it("filters: json, upper, lower, trim, urlencode, length, first, last, join; an unknown filter fails the step", async () => {
    const context = { name: "  Ada Lovelace ", tags: ["vip", "new"], q: "a&b c", obj: { a: 1 } };
    const { value } = substitute(
      {
        json: "{{obj | json}}",
        upper: "{{name | trim | upper}}",
        lower: "{{name | lower}}",
        url: "https://x.example/?q={{q | urlencode}}",
        length: "{{tags | length}}",
        first: "{{tags | first}}",
        last: "{{tags | last}}",
        join: "{{tags | join: ' + '}}",
        joined: "tags: {{tags | join}}",
      },
      context,
    );
    expect(value).toEqual({
      json: '{"a":1}',
      upper: "ADA LOVELACE",
      lower: "  ada lovelace ",
      url: "https://x.example/?q=a%26b%20c",
      length: 2,
      first: "vip",
      last: "new",
      join: "vip + new",
      joined: "tags: vip, new",
    });
    const { key } = await newApiKey(await newUser());
    const typo = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: "{{input.name | capitalize}}" } }] });
    const run = await settled(key, await execute(key, typo.id, { name: "ada" }));
    expect(run.steps[0].error_message).toContain('unknown filter "capitalize"');
  });
});

describe("literal placeholders", () => {
  it("\\{{name}} stays {{name}} for a tool that fills its own template, in strict workflows too", async () => {
    expect(substitute("Hi \\{{name}}, from {{team}}", { team: "Acme" }, { strict: true }).value).toBe("Hi {{name}}, from Acme");
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [{ id: "render", type: "tool", tool: "text_template", arguments: { template: "Hi \\{{name}}!", values: { name: "{{input.name}}" } } }],
    });
    const run = await settled(key, await execute(key, workflow.id, { name: "Ada" }));
    expect(run.steps[0].result.text).toBe("Hi Ada!");
  });
});
