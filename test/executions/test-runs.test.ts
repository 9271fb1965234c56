// Test runs (DESIGN §6.5): pinned steps do not run, and a test run is nobody's work to count,
// notify about or replay.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FAKE, newScenario } from "../conversations/helpers";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow, settled } from "../helpers/runs";

const testRun = (key: string, workflowId: number, body: Record<string, unknown>) =>
  call(`/v1/workflows/${workflowId}/test`, { token: key, json: body, headers: { Prefer: "wait=20" } });

const requestsSeen = async (scenario: string): Promise<unknown[]> => (await fetch(`${FAKE()}/__requests/${scenario}`)).json();

describe("POST /v1/workflows/{id}/test", () => {
  it("never runs a pinned tool step: the steps after it read the pinned result, and the run is listed with mode test", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("pinned");
    const connected = await call("/v1/connections", {
      token: key,
      json: { platform: "slack", name: "slack", config: { bot_token: "xoxb-test-0123456789", base_url: `${FAKE()}/s/${scenario}` } },
    });
    expect(connected.status).toBe(201);
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "send", type: "tool", tool: "slack_send_message", arguments: { channel: "#general", text: "hi" } },
        { id: "after", type: "set", values: { ts: "{{steps.send.result.ts}}" } },
      ],
    });
    const response = await testRun(key, workflow.id, { pinned: { send: { ok: true, ts: "111.222" } } });
    expect(response.status, await response.clone().text()).toBe(200);
    const run = await json(response);
    expect(run).toMatchObject({ mode: "test", status: "succeeded" });
    expect(run.steps.map((s: any) => [s.step_id, s.status, s.attempts])).toEqual([
      ["send", "succeeded", 0],
      ["after", "succeeded", 1],
    ]);
    expect(run.steps[1].result).toEqual({ ts: "111.222" });
    // The platform never heard of it.
    expect(await requestsSeen(scenario)).toEqual([]);

    const ordinary = await call(`/v1/workflows/${workflow.id}/execute`, { token: key, json: {} });
    await settled(key, (await json(ordinary)).execution_id);
    const listed = (await json(await call(`/v1/workflows/${workflow.id}/executions`, { token: key }))).data;
    expect(listed.map((r: any) => r.mode).sort()).toEqual(["production", "test"]);
  });

  it("a failing test run notifies nobody, starts no on_failure run, counts nothing for its agent and is never replayed", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("quiet");
    const handler = await newWorkflow(key, { steps: [{ id: "note", type: "set", values: { seen: true } }] });
    const workflow = await newWorkflow(key, {
      settings: { notify: { url: `${FAKE()}/s/${scenario}/hook` }, on_failure: { workflow_id: handler.id } },
      steps: [{ id: "total", type: "tool", tool: "math_evaluate", arguments: { expression: "{{input.expression}}" } }],
    });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));

    const response = await testRun(key, workflow.id, { input_data: { expression: "2 *" }, agent_id: agent.agent_id });
    expect(response.status, await response.clone().text()).toBe(200);
    const failed = await json(response);
    expect(failed).toMatchObject({ mode: "test", status: "failed", agent_id: agent.agent_id, failed_step_id: "total" });

    const detail = await json(await call(`/v1/executions/${failed.id}`, { token: key }));
    expect(detail.notifications).toEqual([]);
    expect(detail.child_executions).toEqual([]);
    const handled = await env.DB.prepare("SELECT count(*) AS n FROM executions WHERE workflow_id = ?").bind(handler.id).first<{ n: number }>();
    expect(handled!.n).toBe(0);
    expect(await requestsSeen(scenario)).toEqual([]);

    const details = await json(await call(`/v1/agents/${agent.agent_id}`, { token: key }));
    expect(details.monitoring).toMatchObject({ execution_count: 0, success_count: 0, failure_count: 0, last_error: null });
    expect(details.monitoring.last_run_at ?? null).toBeNull();
    expect(details.performance_metrics.runs_in_window).toBe(0);

    const replay = await call(`/v1/workflows/${workflow.id}/executions/replay`, { token: key, json: { status: "failed" } });
    expect(replay.status).toBe(202);
    expect(await json(replay)).toMatchObject({ data: [], count: 0 });
  });

  it("refuses a pin of a step the workflow does not have (422 naming pinned.<id>) and an agent of another workflow", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [
        {
          id: "check",
          type: "condition",
          condition: { field: "input.n", operator: "equals", value: 1 },
          then: [{ id: "yes", type: "set", values: { y: 1 } }],
          else: [{ id: "no", type: "set", values: { n: 1 } }],
        },
      ],
    });
    const other = await newWorkflow(key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: other.id } }));
    const problem = await expectProblem(
      await testRun(key, workflow.id, { pinned: { nope: { x: 1 }, check: { took: "then" } }, agent_id: agent.agent_id }),
      422,
      "validation_failed",
    );
    expect(problem.errors?.map((e) => e.field).sort()).toEqual(["agent_id", "pinned.check", "pinned.nope"]);
    // A pinned condition takes the branch it names.
    const pinned = await json(await testRun(key, workflow.id, { input_data: { n: 1 }, pinned: { check: { branch: "else" } } }));
    expect(pinned.steps.map((s: any) => [s.step_id, s.attempts])).toEqual([
      ["check", 0],
      ["no", 1],
    ]);
  });
});
