import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, settled } from "../helpers/runs";

// GET /v1/workflows/{id}/export and POST /v1/workflows/import {bundle, connections?} (DESIGN §6.6).

const SLACK_TOKEN = "xoxb-portable-0123456789";
const LITERAL_KEY = "sk_live_portable0123456789abcdef";

async function slackConnection(key: string, name: string) {
  const response = await call("/v1/connections", { token: key, json: { platform: "slack", name, config: { bot_token: SLACK_TOKEN } } });
  expect(response.status).toBe(201);
  return (await json(response)).connection_id as number;
}

const exportOf = async (key: string, id: number) => {
  const response = await call(`/v1/workflows/${id}/export`, { token: key });
  expect(response.status).toBe(200);
  return json(response);
};
const importing = (key: string, body: Record<string, unknown>) => call("/v1/workflows/import", { token: key, json: body });

/** A workflow that runs a child that runs a grandchild, with a Slack step (on a branch its runs do not take) on a named connection. */
async function threeLevels(key: string, connectionId: number) {
  const grandchild = await newWorkflow(key, {
    workflow_name: "Grandchild",
    steps: [{ id: "greet", type: "set", values: { greeting: "hello from the grandchild", api_key: LITERAL_KEY } }],
  });
  const child = await newWorkflow(key, {
    workflow_name: "Child",
    steps: [{ id: "call_grandchild", type: "workflow", workflow_id: grandchild.id, input: {} }],
  });
  const root = await newWorkflow(key, {
    workflow_name: "Root",
    steps: [
      { id: "call_child", type: "workflow", workflow_id: child.id, input: { from: "root" } },
      {
        id: "maybe_tell",
        type: "condition",
        condition: { field: "{{input.tell}}", operator: "equals", value: "yes" },
        then: [{ id: "tell", type: "tool", tool: "slack_send_message", arguments: { channel: "#general", text: "done", connection_id: connectionId } }],
        else: [],
      },
    ],
  });
  return { root, child, grandchild };
}

describe("workflow bundles", () => {
  it("exports a workflow with its children and connection by reference, imports it into another workspace where it runs, and exports it again the same", async () => {
    const { key } = await newApiKey(await newUser());
    const connectionId = await slackConnection(key, "Team Slack");
    const { root, child, grandchild } = await threeLevels(key, connectionId);

    const bundle = await exportOf(key, root.id);
    expect(bundle.format).toBe("hub.workflow/1");
    expect(bundle.workflow).toMatchObject({ ref: "root", name: "Root" });
    expect(bundle.children.map((c: any) => c.name)).toEqual(["Child", "Grandchild"]);
    expect(bundle.connections_required).toEqual([{ platform: "slack", name: "Team Slack" }]);
    expect(bundle.workflow.steps[0].workflow).toEqual({ ref: "child-1" });
    expect(bundle.workflow.steps[1].then[0].connection).toEqual({ platform: "slack", name: "Team Slack" });
    const text = JSON.stringify(bundle);
    for (const workflow of [bundle.workflow, ...bundle.children]) expect(Object.keys(workflow)).not.toContain("id");
    for (const absent of ['"workflow_id"', '"connection_id"', "created_at", "updated_at", "notify_secret", SLACK_TOKEN, LITERAL_KEY]) {
      expect(text).not.toContain(absent);
    }
    // An id would be a number value somewhere in it.
    for (const id of [root.id, child.id, grandchild.id, connectionId]) expect(text).not.toMatch(new RegExp(`[:\\[,]${id}[,\\]}]`));

    // Another person's workspace, with a Slack connection of the same name, named explicitly.
    const other = (await newApiKey(await newUser())).key;
    const theirs = await slackConnection(other, "Team Slack");
    const response = await importing(other, { bundle, connections: { slack: theirs } });
    expect(response.status).toBe(201);
    const imported = await json(response);
    expect(imported.warnings).toEqual([]);
    // The answer is the root workflow itself, with the rest of the import beside it.
    expect(imported).toMatchObject({ id: imported.workflow.id, name: imported.workflow.name, steps: imported.workflow.steps });
    expect(imported.children.map((c: any) => c.ref)).toEqual(["child-1", "child-2"]);
    const [newChild, newGrandchild] = imported.children;
    expect(imported.workflow.steps[0].workflow_id).toBe(newChild.id);
    expect(newChild.steps[0].workflow_id).toBe(newGrandchild.id);
    expect(imported.workflow.steps[1].then[0].arguments.connection_id).toBe(theirs);
    // The credential the export took out is a variable the importer fills in.
    expect(newGrandchild.steps[0].values.api_key).toMatch(/^\{\{\w+\}\}$/);

    const run = await settled(other, await execute(other, imported.workflow.id));
    expect(run.status).toBe("succeeded");
    const callChild = run.steps.find((s: any) => s.step_id === "call_child");
    expect(JSON.stringify(callChild.result)).toContain("hello from the grandchild");

    expect(await exportOf(other, imported.workflow.id)).toEqual(bundle);
    // Nothing of it is readable from the first workspace.
    expect((await call(`/v1/workflows/${imported.workflow.id}/export`, { token: key })).status).toBe(404);
  });

  it("refuses what it cannot import whole, naming the field, and writes nothing", async () => {
    const { key } = await newApiKey(await newUser());
    const connectionId = await slackConnection(key, "Ops Slack");
    const { root } = await threeLevels(key, connectionId);
    const bundle = await exportOf(key, root.id);
    const other = (await newApiKey(await newUser())).key;

    const format = await expectProblem(await importing(other, { bundle: { ...bundle, format: "hub.workflow/9" } }), 422, "validation_failed");
    expect(format.errors?.map((e) => e.field)).toEqual(["bundle.format"]);

    // No Slack connection named "Ops Slack" in the other workspace, and none mapped.
    await slackConnection(other, "Another Slack");
    const missing = await expectProblem(await importing(other, { bundle }), 422, "validation_failed");
    expect(missing.errors?.map((e) => e.field)).toEqual(["connections.slack"]);
    // The first workspace's connection is not the other's to use.
    const foreign = await expectProblem(await importing(other, { bundle, connections: { slack: connectionId } }), 422, "validation_failed");
    expect(foreign.errors?.map((e) => e.field)).toEqual(["connections.slack"]);

    const padded = { ...bundle, workflow: { ...bundle.workflow, workflow_metadata: { notes: "x".repeat(600 * 1024) } } };
    await expectProblem(await importing(other, { bundle: padded }), 413, "payload_too_large");

    const neither = await expectProblem(await importing(other, {}), 422, "validation_failed");
    expect(neither.errors?.map((e) => e.field)).toEqual(["bundle"]);

    expect((await json(await call("/v1/workflows", { token: other }))).data).toHaveLength(0);
  });
});
