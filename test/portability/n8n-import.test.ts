// POST /v1/workflows/import {n8n}: real-format n8n exports (test/fixtures/n8n) import through the
// API and their runs compute what n8n computes for the same input. The expected values are worked
// out by hand from n8n's documented semantics, as noted beside each.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { execute, settled } from "../helpers/runs";
import pair from "../fixtures/n8n/execute-workflow-pair.json";
import scheduled from "../fixtures/n8n/schedule-http-code-switch.json";
import bench from "../fixtures/n8n/webhook-ten-sets-if.json";

const importN8n = (key: string, n8n: unknown) => call("/v1/workflows/import", { token: key, json: { n8n } });
const resultOf = (execution: any, stepId: string) => execution.steps.find((step: any) => step.step_id === stepId)?.result;

describe("importing n8n workflows", () => {
  it("imports the benchmark's webhook → ten Set nodes → IF and runs it as n8n would", async () => {
    const { key } = await newApiKey(await newUser());
    const response = await importN8n(key, bench);
    expect(response.status).toBe(201);
    const imported = await json(response);
    expect(imported.workflow).toMatchObject({ name: "Bench: webhook, ten Set nodes, IF", trigger_type: "webhook" });
    expect(imported.warnings).toEqual([{ node: "Webhook", reason: expect.stringContaining("webhook_url") }]);

    // n8n, for a POST body {customer: "ada", amount: 60, source: "newsletter"}: Set 4 gives
    // amount * 2 = 120; Set 5 the greeting text; Set 9 "ada".length = 3; Set 10 "ADA/newsletter";
    // IF 120 > 100 takes the true output: priority "high".
    const big = await settled(key, await execute(key, imported.workflow.id, { customer: "ada", amount: 60, source: "newsletter" }));
    expect(big.status).toBe("succeeded");
    expect(resultOf(big, "Set_4")).toEqual({ amount_doubled: 120 });
    expect(resultOf(big, "Set_5")).toEqual({ greeting: "Hello ada, your total is 120 EUR" });
    expect(resultOf(big, "Set_9")).toEqual({ name_length: 3 });
    expect(resultOf(big, "Set_10")).toEqual({ summary: "ADA/newsletter" });
    expect(resultOf(big, "Priority_high")).toEqual({ priority: "high" });
    expect(resultOf(big, "Priority_normal")).toBeUndefined();

    // Without a source, `$('Webhook').item.json.body.source || 'direct'` is "direct"; 40 * 2 = 80 is not > 100: the false output.
    const small = await settled(key, await execute(key, imported.workflow.id, { customer: "bo", amount: 40 }));
    expect(small.status).toBe("succeeded");
    expect(resultOf(small, "Set_10")).toEqual({ summary: "BO/direct" });
    expect(resultOf(small, "Priority_normal")).toEqual({ priority: "normal" });
    expect(resultOf(small, "Priority_high")).toBeUndefined();
  });

  it("runs an HTTP request, a Code node and a Switch into the hub's Slack tool on the caller's connection", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = `n8n${crypto.randomUUID().replaceAll("-", "")}`;
    const base_url = `${env.TEST_FAKE_URL}/s/${scenario}`;
    const connected = await call("/v1/connections", {
      token: key,
      json: { platform: "slack", name: "Slack", config: { bot_token: "xoxb-test-0123456789", base_url } },
    });
    expect(connected.status).toBe(201);
    const n8n = structuredClone(scheduled) as any;
    n8n.nodes.find((node: any) => node.name === "HTTP Request").parameters.url = `${base_url}/things/42`;

    const response = await importN8n(key, n8n);
    expect(response.status).toBe(201);
    const imported = await json(response);
    expect(imported.workflow).toMatchObject({
      trigger_type: "schedule",
      trigger_config: { type: "cron", cron_expression: "0 9 * * 1-5", timezone: "Europe/Berlin" },
    });

    const run = await settled(key, await execute(key, imported.workflow.id));
    expect(run.status).toBe("succeeded");
    // The thing API answers {id: "42", kind: "thing"}; the Code node gives label "THING-42" and
    // weight "42".length * 10 = 20; the Switch's first rule (label starts with "THING") holds.
    expect(resultOf(run, "Label_it")).toEqual({ id: "42", label: "THING-42", weight: 20 });
    const requests: any[] = await (await fetch(`${env.TEST_FAKE_URL}/__requests/${scenario}`)).json();
    const thing = requests.find((request) => request.path === "/things/42");
    expect(thing.query).toEqual({ expand: "all" });
    expect(thing.headers["x-run"]).toBe(run.id);
    const posted = requests.filter((request) => request.path === "/chat.postMessage");
    expect(posted.map((request) => request.body)).toEqual([{ channel: "C0123456789", text: "Found THING-42 (thing, weight 20)" }]);
    expect(requests.some((request) => request.path.includes("/v4/spreadsheets"))).toBe(false);
  });

  it("imports a caller with the workflow it executes, and the call computes the sub-workflow's answer", async () => {
    const { key } = await newApiKey(await newUser());
    const response = await importN8n(key, pair);
    expect(response.status).toBe(201);
    const imported = await json(response);
    expect(imported.workflow.name).toBe("Lead scoring");
    expect(imported.children).toEqual([expect.objectContaining({ name: "Score a lead", ref: "ScoreLeadSub" })]);
    expect(imported.workflow.steps[1]).toMatchObject({ type: "workflow", workflow_id: imported.children[0].id });

    // The sub-workflow's Code node: 7 visits * 3 + 10 for an .io address = 31.
    const run = await settled(key, await execute(key, imported.workflow.id, { email: "ada@example.io", visits: 7 }));
    expect(run.status).toBe("succeeded");
    expect(resultOf(run, "Result")).toEqual({ final_score: 31 });
  });

  it("answers 422 naming n8n.nodes when no node maps, and creates nothing", async () => {
    const { key } = await newApiKey(await newUser());
    const response = await importN8n(key, {
      name: "Nothing for the hub",
      nodes: [
        { name: "Start", type: "n8n-nodes-base.manualTrigger", typeVersion: 1, position: [0, 0], parameters: {} },
        { name: "Mystery", type: "n8n-nodes-base.someUnknown", typeVersion: 1, position: [200, 0], parameters: {} },
      ],
      connections: { Start: { main: [[{ node: "Mystery", type: "main", index: 0 }]] } },
    });
    const problem = await expectProblem(response, 422, "validation_failed");
    expect(problem.errors?.map((error) => error.field)).toEqual(["n8n.nodes"]);
    expect((await json(await call("/v1/workflows", { token: key }))).data).toEqual([]);
  });
});
