import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";
import { connectModel, modelRequests, newScenario, openai, script } from "../conversations/helpers";

/**
 * Every model call has a deadline (MODEL_CALL_TIMEOUT_SECONDS), whoever makes it: a model server
 * that trickles its answer one byte at a time (no read ever times out) must not hold a run, a
 * turn or a request forever. The deadline is set to 1 s here through the Worker's settings.
 */

const settings = { MODEL_CALL_TIMEOUT_SECONDS: "1" };
let address = 0;

/** A request through the Worker with the 1 s deadline, waiting for the work it leaves running (an inline run). */
async function send(key: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const ctx = createExecutionContext();
  const request = new Request(`http://hub.test${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "CF-Connecting-IP": `198.51.100.${(address++ % 200) + 20}`, ...headers },
    body: JSON.stringify(body),
  });
  const response = await worker.fetch(request, { ...env, ...settings } as never, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

describe("model calls have a deadline (MODEL_CALL_TIMEOUT_SECONDS)", () => {
  it("an llm step whose model trickles its answer fails that attempt at the deadline, and its retry asks again", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("trickle-step");
    await connectModel(key, scenario);
    await script(scenario, [{ trickle_ms: 100 } as never, openai.text("On time.")]);
    const workflow = await newWorkflow(key, {
      steps: [{ id: "draft", type: "llm", provider: "openai", prompt: "Write a line.", retry: { max_attempts: 2, delay_seconds: 0 } }],
    });
    const run = await json(await send(key, `/v1/workflows/${workflow.id}/execute`, { input_data: {} }, { Prefer: "wait=30" }));
    expect(run.status).toBe("succeeded");
    expect(run.steps[0]).toMatchObject({ status: "succeeded", attempts: 2, result: { text: "On time." } });
    expect(await modelRequests(scenario)).toHaveLength(2);
  }, 30_000);

  it("an llm step whose model always trickles fails with the deadline's reason, not hanging", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("trickle-fail");
    await connectModel(key, scenario);
    await script(scenario, [{ trickle_ms: 100 } as never]);
    const workflow = await newWorkflow(key, { steps: [{ id: "draft", type: "llm", provider: "openai", prompt: "Write a line." }] });
    const run = await json(await send(key, `/v1/workflows/${workflow.id}/execute`, { input_data: {} }, { Prefer: "wait=30" }));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "draft" });
    expect(run.error_message).toContain("did not answer within 1 s (MODEL_CALL_TIMEOUT_SECONDS)");
  }, 30_000);

  it("a direct question to a trickling model answers 502 provider_failed at the deadline", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("trickle-direct");
    await connectModel(key, scenario);
    await script(scenario, [{ trickle_ms: 100 } as never]);
    const problem = await expectProblem(await send(key, "/v1/chat/test", { content: "Hello?", provider: "openai" }), 502, "provider_failed");
    expect(problem.detail).toContain("did not answer within 1 s");
  }, 30_000);
});
