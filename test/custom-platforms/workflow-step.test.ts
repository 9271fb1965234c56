// A workflow's tool step calls a custom platform's tool as the run's owner, and its permanent
// failure (the API's 404) fails the step at once with the API's message, as for any platform.
import { describe, expect, it } from "vitest";
import { call, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, settled } from "../helpers/runs";
import { addPetstore, petstoreScenario, requestsOf, scenarioUrl } from "./helpers";

describe("custom platform tools in workflows", () => {
  it("runs a step with the step's arguments and fails the next on the API's 404 without retrying", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = petstoreScenario("workflow");
    const id = await addPetstore(key);
    const connected = await call("/v1/connections", {
      token: key,
      json: { platform: id, name: "Pets", config: { api_key: "special-key", base_url: scenarioUrl(scenario) } },
    });
    expect(connected.status).toBe(201);
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "sold", type: "tool", tool: `${id}_find_pets_by_status`, arguments: { status: "{{input.status}}" } },
        { id: "missing", type: "tool", tool: `${id}_get_pet_by_id`, arguments: { petId: 404 }, retry: { max_attempts: 3, delay_seconds: 1, backoff: "fixed" } },
      ],
    });
    const run = await settled(key, await execute(key, workflow.id, { status: "sold" }));
    expect(run.status).toBe("failed");
    const [sold, missing] = run.steps;
    expect(sold).toMatchObject({ step_id: "sold", status: "succeeded", result: [{ name: "Tom" }] });
    expect(missing).toMatchObject({ step_id: "missing", status: "failed", attempts: 1 });
    expect(missing.error_message).toContain("answered 404: Pet not found");
    expect((await requestsOf(scenario)).map((r) => `${r.method} ${r.path}`)).toEqual(["GET /pet/findByStatus", "GET /pet/404"]);
  });
});
