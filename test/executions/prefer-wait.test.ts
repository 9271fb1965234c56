import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";

const TEN_STEPS = [
  ...Array.from({ length: 9 }, (_, i) => ({ id: `s${i}`, type: "set", values: { [`v${i}`]: i } })),
  { id: "check", type: "condition", condition: { field: "{{v8}}", operator: "equals", value: 8 }, then: [{ id: "yes", type: "set", values: { ok: true } }] },
];

async function workflow(key: string, steps: unknown[]) {
  const response = await call("/v1/workflows", { token: key, json: { workflow_name: "wait", description: "Prefer: wait", steps } });
  expect(response.status).toBe(201);
  return (await json(response)).id as number;
}

const execute = (key: string, path: string, prefer?: string) =>
  call(path, { token: key, json: { input_data: {} }, headers: prefer ? { Prefer: prefer } : undefined });

describe("Prefer: wait on execute (DESIGN.md §4)", () => {
  it("answers 200 with the finished execution and its steps when it ends in time", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await workflow(key, TEN_STEPS);
    const response = await execute(key, `/v1/workflows/${id}/execute`, "wait=10");
    expect(response.status).toBe(200);
    expect(response.headers.get("Preference-Applied")).toBe("wait=10");
    const execution = await json(response);
    expect(execution.status).toBe("succeeded");
    expect(execution.steps.filter((s: { status: string }) => s.status === "succeeded")).toHaveLength(11);
  });

  it("answers 202 as before when the run outlasts the wait, and the run still ends", { timeout: 15_000 }, async () => {
    const { key } = await newApiKey(await newUser());
    const id = await workflow(key, [
      { id: "pause", type: "delay", seconds: 2 },
      { id: "after", type: "set", values: { done: true } },
    ]);
    const response = await execute(key, `/v1/workflows/${id}/execute`, "respond-async, wait=1");
    expect(response.status).toBe(202);
    expect(response.headers.get("Preference-Applied")).toBe("wait=1");
    const { execution_id } = await json(response);
    let status = "queued";
    for (let i = 0; i < 100 && status !== "succeeded"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await json(await call(`/v1/executions/${execution_id}`, { token: key }))).status;
    }
    expect(status).toBe("succeeded");
  });

  it("caps the wait at 60 seconds and ignores a malformed preference", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await workflow(key, TEN_STEPS);
    const capped = await execute(key, `/v1/workflows/${id}/execute`, "wait=3600");
    expect(capped.status).toBe(200);
    expect(capped.headers.get("Preference-Applied")).toBe("wait=60");
    const malformed = await execute(key, `/v1/workflows/${id}/execute`, "wait=soon");
    expect(malformed.status).toBe(202);
    expect(malformed.headers.get("Preference-Applied")).toBeNull();
  });

  it("finishes a run started without waiting, driven by the invocation that accepted it", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await workflow(key, TEN_STEPS);
    const { execution_id } = await json(await execute(key, `/v1/workflows/${id}/execute`));
    let execution = await json(await call(`/v1/executions/${execution_id}`, { token: key }));
    for (let i = 0; i < 50 && execution.status !== "succeeded"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      execution = await json(await call(`/v1/executions/${execution_id}`, { token: key }));
    }
    expect(execution.status).toBe("succeeded");
    expect(execution.steps.filter((s: { status: string }) => s.status === "succeeded")).toHaveLength(11);
  });

  it("works for agents too", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await workflow(key, TEN_STEPS);
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: id } }));
    const response = await call(`/v1/agents/${agent.agent_id}/execute`, { token: key, json: { source: "test" }, headers: { Prefer: "wait=10" } });
    expect(response.status).toBe(200);
    expect((await json(response)).status).toBe("succeeded");
  });
});
