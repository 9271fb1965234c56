// n8n exports → hub workflows, without the runtime: each fixture (test/fixtures/n8n, n8n's own
// export format) converts to the steps, placeholders, trigger and warnings the mapping promises.
import { describe, expect, it } from "vitest";
import { HubError } from "../../src/core/errors";
import { convertN8n } from "../../src/portability/n8n/convert";
import { translateValue } from "../../src/portability/n8n/expressions";
import { validateSteps } from "../../src/workflows/steps";
import pair from "../fixtures/n8n/execute-workflow-pair.json";
import leads from "../fixtures/n8n/webhook-if-sheets-gmail.json";
import scheduled from "../fixtures/n8n/schedule-http-code-switch.json";
import bench from "../fixtures/n8n/webhook-ten-sets-if.json";

const node = (name: string, type: string, parameters: Record<string, unknown> = {}, typeVersion = 1, position: [number, number] = [0, 0]) => ({
  id: name,
  name,
  type,
  typeVersion,
  position,
  parameters,
});
const chain = (...names: string[]) =>
  Object.fromEntries(names.slice(0, -1).map((name, i) => [name, { main: [[{ node: names[i + 1], type: "main", index: 0 }]] }]));

describe("n8n → hub conversion", () => {
  it("turns the benchmark's webhook → ten Set nodes → IF into set steps and a condition, with valid steps", () => {
    const { workflow, warnings } = convertN8n(bench);
    expect(workflow).toMatchObject({ workflow_name: "Bench: webhook, ten Set nodes, IF", trigger_type: "webhook", trigger_config: { verify: "hub" } });
    expect(validateSteps(workflow.steps).errors).toEqual([]);
    const ids = workflow.steps.map((step) => step.id);
    // Set 4 multiplies, which no placeholder does: a code step works it out just before it.
    expect(ids).toEqual(["Set_1", "Set_2", "Set_3", "Set_4_expr", "Set_4", "Set_5", "Set_6", "Set_7", "Set_8", "Set_9", "Set_10", "Big_order"]);
    const byId = Object.fromEntries(workflow.steps.map((step) => [step.id, step as any]));
    // A webhook's $json.body is the run's input; later $json reads find the Set node that wrote the field.
    expect(byId.Set_1.values).toEqual({ customer: "{{input.customer}}", amount: "{{input.amount}}" });
    expect(byId.Set_3.values).toEqual({ customer_upper: "{{steps.Set_1.result.customer | upper}}" });
    expect(byId.Set_5.values.greeting).toBe(
      'Hello {{steps.Set_1.result.customer | default: ""}}, your total is {{steps.Set_4.result.amount_doubled | default: ""}} {{steps.Set_2.result.currency | default: ""}}',
    );
    expect(byId.Set_6.values).toEqual({ tags: ["web", "bench"] });
    expect(byId.Set_7.values).toEqual({ vip: false });
    expect(byId.Set_8.values).toEqual({ source: '{{input.source | default: "direct"}}' });
    expect(byId.Set_9.values).toEqual({ name_length: "{{steps.Set_1.result.customer | length}}" });
    expect(byId.Big_order).toMatchObject({
      type: "condition",
      condition: { field: "{{steps.Set_4.result.amount_doubled}}", operator: "greater_than", value: 100 },
      then: [{ id: "Priority_high", type: "set", values: { priority: "high" } }],
      else: [{ id: "Priority_normal", type: "set", values: { priority: "normal" } }],
    });
    expect(warnings).toEqual([{ node: "Webhook", reason: expect.stringContaining('path "bench-order" is not kept') }]);
  });

  it("maps a schedule, an HTTP request, a Code node and a Switch onto Slack, Google Sheets or nothing", () => {
    const { workflow, warnings } = convertN8n(scheduled);
    expect(workflow).toMatchObject({ trigger_type: "schedule", trigger_config: { type: "cron", cron_expression: "0 9 * * 1-5", timezone: "Europe/Berlin" } });
    expect(validateSteps(workflow.steps).errors).toEqual([]);
    const [http, code, route] = workflow.steps as any[];
    expect(http).toMatchObject({
      id: "HTTP_Request",
      type: "tool",
      tool: "http_request",
      arguments: {
        url: "https://api.example.com/things/42",
        method: "GET",
        query: { expand: "all" },
        headers: { "X-Run": "{{execution.id}}" },
        timeout_seconds: 10,
      },
    });
    // The Code node reads the HTTP response body as its $json (n8n's output of an HTTP Request).
    expect(code).toMatchObject({ id: "Label_it", type: "code", input: { json: ["{{steps.HTTP_Request.result.body}}"] } });
    expect(code.code).toContain("thing.kind.toUpperCase()");
    // Switch rules in order, the fallback output ("extra") last; NoOp becomes nothing.
    expect(route).toMatchObject({
      type: "condition",
      condition: { field: "{{steps.Label_it.result.label}}", operator: "starts_with", value: "THING" },
      then: [
        {
          tool: "slack_send_message",
          arguments: {
            channel: "C0123456789",
            text: 'Found {{steps.Label_it.result.label | default: ""}} ({{steps.HTTP_Request.result.body.kind | default: ""}}, weight {{steps.Label_it.result.weight | default: ""}})',
          },
        },
      ],
      else: [
        {
          id: "Route_case2",
          condition: { field: "{{steps.Label_it.result.weight}}", operator: "greater_than_or_equal", value: 50 },
          then: [
            {
              tool: "google_sheets_append_rows",
              arguments: {
                spreadsheet_id: "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms",
                range: "Sheet1",
                rows: [["{{steps.Label_it.result.id}}", "{{steps.Label_it.result.label}}"]],
              },
            },
          ],
          else: [],
        },
      ],
    });
    expect(warnings).toEqual([]);
  });

  it("maps IF with two conditions (case-insensitive), auto-mapped Sheets columns, Gmail and Wait", () => {
    const { workflow } = convertN8n(leads);
    expect(workflow).toMatchObject({ trigger_type: "webhook", trigger_config: { verify: "token" } });
    expect(validateSteps(workflow.steps).errors).toEqual([]);
    const [qualified] = workflow.steps as any[];
    expect(qualified.condition).toEqual({
      and: [
        { field: "{{input.email | lower}}", operator: "contains", value: "@" },
        { field: "{{input.score}}", operator: "greater_than_or_equal", value: 50 },
      ],
    });
    expect(qualified.then.map((step: any) => step.id)).toEqual(["Lead_fields", "Add_lead", "Wait_a_day"]);
    expect(qualified.then[1].arguments).toEqual({
      spreadsheet_id: "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms",
      range: "Leads",
      rows: [["{{steps.Lead_fields.result.email}}", "{{steps.Lead_fields.result.score}}"]],
    });
    expect(qualified.then[2]).toEqual({ id: "Wait_a_day", type: "delay", name: "Wait a day", seconds: 86_400 });
    expect(qualified.else).toEqual([
      {
        id: "Say_sorry",
        type: "tool",
        name: "Say sorry",
        tool: "gmail_send_email",
        arguments: { to: ["{{input.email}}"], subject: "Thanks for your interest", text: 'Hi {{input.name | default: ""}}, we will be in touch.' },
      },
    ]);
  });

  it("maps Execute Workflow to a workflow step when the called workflow is imported with it", () => {
    const [caller, callee] = pair;
    const sub = convertN8n(callee);
    expect(sub.workflow.trigger_type).toBe("manual");
    expect(sub.lastStepId).toBe("Score");
    const main = convertN8n(caller, { imported: new Map([["ScoreLeadSub", { id: 77, lastStepId: "Score" }]]) });
    expect(main.workflow.steps.map((step: any) => [step.id, step.type])).toEqual([
      ["Lead", "set"],
      ["Execute_Workflow", "workflow"],
      ["Result", "set"],
    ]);
    expect(main.workflow.steps[1]).toMatchObject({ workflow_id: 77, input: { email: "{{steps.Lead.result.email}}", visits: "{{steps.Lead.result.visits}}" } });
    // n8n's output of Execute Workflow is the called workflow's last node's: its step's result.
    expect((main.workflow.steps[2] as any).values).toEqual({ final_score: "{{steps.Execute_Workflow.result.steps.Score.score}}" });
    // Alone, the call has nothing to point at: left out, with the reason.
    const alone = convertN8n(caller);
    expect(alone.warnings).toContainEqual({ node: "Execute Workflow", reason: expect.stringContaining("not imported with it") });
  });

  it("runs a node both IF branches feed once, after the condition, and skips disabled nodes", () => {
    const set = (name: string, field: string, value: string, position: [number, number]) =>
      node(
        name,
        "n8n-nodes-base.set",
        { assignments: { assignments: [{ id: name, name: field, value, type: "string" }] }, includeOtherFields: true },
        3.4,
        position,
      );
    const { workflow, warnings } = convertN8n({
      nodes: [
        node("Start", "n8n-nodes-base.manualTrigger"),
        node(
          "Check",
          "n8n-nodes-base.if",
          {
            conditions: { conditions: [{ leftValue: "={{ $json.ok }}", rightValue: "", operator: { type: "boolean", operation: "true" } }], combinator: "and" },
          },
          2,
          [200, 0],
        ),
        set("Yes", "answer", "yes", [400, -100]),
        set("No", "answer", "no", [400, 100]),
        { ...set("Off", "unused", "x", [500, 100]), disabled: true },
        set("After", "done", "={{ $json.answer }}!", [600, 0]),
      ],
      connections: {
        Start: { main: [[{ node: "Check", type: "main", index: 0 }]] },
        Check: { main: [[{ node: "Yes", type: "main", index: 0 }], [{ node: "No", type: "main", index: 0 }]] },
        Yes: { main: [[{ node: "After", type: "main", index: 0 }]] },
        No: { main: [[{ node: "Off", type: "main", index: 0 }]] },
        Off: { main: [[{ node: "After", type: "main", index: 0 }]] },
      },
    });
    expect(workflow.steps).toMatchObject([
      { id: "Check", condition: { field: "{{input.ok}}", operator: "equals", value: true }, then: [{ id: "Yes" }], else: [{ id: "No" }] },
      { id: "After", values: { done: '{{steps.Yes.result.answer | default: ""}}!' } },
    ]);
    expect(warnings).toEqual([
      { node: "Off", reason: "It is disabled in n8n: left out." },
      { node: "After", reason: expect.stringContaining("Branches meet here") },
    ]);
  });

  it("warns about nodes it cannot map and keeps the rest", () => {
    const { workflow, warnings } = convertN8n({
      name: "Mixed",
      nodes: [
        node("Start", "n8n-nodes-base.manualTrigger"),
        node("Mystery", "n8n-nodes-base.someUnknown", {}, 1, [200, 0]),
        node("Greet", "n8n-nodes-base.set", { assignments: { assignments: [{ id: "1", name: "hello", value: "world", type: "string" }] } }, 3.4, [400, 0]),
        node("Python", "n8n-nodes-base.code", { language: "python", pythonCode: "return _input.all()" }, 2, [600, 0]),
      ],
      connections: chain("Start", "Mystery", "Greet", "Python"),
    });
    expect(workflow.steps).toEqual([{ id: "Greet", type: "set", name: "Greet", values: { hello: "world" } }]);
    expect(warnings).toEqual([
      { node: "Mystery", reason: "n8n-nodes-base.someUnknown has no hub equivalent: left out." },
      { node: "Python", reason: expect.stringContaining("python code is not taken over") },
    ]);
  });

  it("answers 422 naming n8n.nodes when nothing maps, and n8n.<field> when it is no export", () => {
    const nothing = () =>
      convertN8n({
        nodes: [node("Start", "n8n-nodes-base.manualTrigger"), node("Mystery", "n8n-nodes-base.someUnknown")],
        connections: chain("Start", "Mystery"),
      });
    expect(nothing).toThrow(HubError);
    try {
      nothing();
    } catch (error) {
      expect((error as HubError).code).toBe("validation_failed");
      expect((error as HubError).errors?.[0]?.field).toBe("n8n.nodes");
    }
    try {
      convertN8n({ name: "no nodes" });
      expect.unreachable();
    } catch (error) {
      expect((error as HubError).errors?.[0]?.field).toBe("n8n.nodes");
    }
  });

  it("translates n8n expressions to placeholders, and computes the rest", () => {
    const computed: string[] = [];
    const scope = {
      path: (node: string | undefined, segments: string[]) => [node === undefined ? "steps.prev.result" : `steps.${node}.result`, ...segments].join("."),
      computed: (js: string) => {
        computed.push(js);
        return `{{steps.x_expr.result.e${computed.length - 1}}}`;
      },
    };
    const cases: [unknown, unknown][] = [
      ["={{ $json.email }}", "{{steps.prev.result.email}}"],
      ["={{ $json['first name'] }}", "{{steps.x_expr.result.e0}}"],
      ["={{ $('Lookup').item.json.user.id }}", "{{steps.Lookup.result.user.id}}"],
      ['={{ $node["Lookup"].json.tags[0] }}', "{{steps.Lookup.result.tags.0}}"],
      ["={{ $input.first().json.name.trim().toLowerCase() }}", "{{steps.prev.result.name | trim | lower}}"],
      ["={{ JSON.stringify($json.items) }}", "{{steps.prev.result.items | json}}"],
      ["={{ $json.tags.join(', ') }}", '{{steps.prev.result.tags | join: ", "}}'],
      ["={{ $now }}", "{{execution.started_at}}"],
      ["=Run {{ $execution.id }} at {{ $now.toISO() }}", 'Run {{execution.id | default: ""}} at {{execution.started_at | default: ""}}'],
      ["={{ 42 }}", 42],
      ["plain {{ not an expression }}", "plain \\{{ not an expression }}"],
      ["={{ $json.a + $json.b }}", "{{steps.x_expr.result.e1}}"],
      [{ nested: ["={{ $json.n }}"] }, { nested: ["{{steps.prev.result.n}}"] }],
    ];
    for (const [raw, expected] of cases) expect(translateValue(raw, scope), JSON.stringify(raw)).toEqual(expected);
    expect(computed).toEqual(["($json['first name'])", "($json.a + $json.b)"]);
  });
});
