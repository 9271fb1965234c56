import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, settled } from "../helpers/runs";

const set = (value: number) => [{ id: "a", type: "set", values: { x: value } }];

describe("workflow versions", () => {
  it("keeps every version of the steps, restores an old one as a new version, and runs keep the version they started with", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: set(1) });
    const path = `/v1/workflows/${workflow.id}`;
    await call(path, { method: "PUT", token: key, json: { steps: set(2) } });
    await call(path, { method: "PUT", token: key, json: { name: "renamed" } }); // no new version: the steps did not change

    const { data } = await json(await call(`${path}/versions`, { token: key }));
    expect(data.map((v: any) => [v.version, v.current, v.steps[0].values.x])).toEqual([
      [2, true, 2],
      [1, false, 1],
    ]);

    const running = await execute(key, workflow.id);
    const restored = await json(await call(`${path}/versions/1/restore`, { method: "POST", token: key }));
    expect(restored).toMatchObject({ version: 3, name: "renamed", steps: set(1) });
    expect((await json(await call(`${path}/versions`, { token: key }))).data[0]).toMatchObject({ version: 3, current: true });

    // The run started at version 2 ran version 2's steps.
    const execution = await settled(key, running);
    expect(execution).toMatchObject({ workflow_version: 2, status: "succeeded" });
    expect(execution.steps[0].result).toEqual({ x: 2 });

    await expectProblem(await call(`${path}/versions/9/restore`, { method: "POST", token: key }), 404, "not_found");
    const stranger = await newApiKey(await newUser());
    await expectProblem(await call(`${path}/versions`, { token: stranger.key }), 404, "not_found");
    await expectProblem(await call(`${path}/versions/1/restore`, { method: "POST", token: stranger.key }), 404, "not_found");
  });
});
