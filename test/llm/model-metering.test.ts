import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { delegatedContext, runtimeFor } from "../../src/core/context";
import { HubError } from "../../src/core/errors";
import { MessageStore } from "../../src/conversations/messages";
import { runTurn } from "../../src/conversations/orchestrator";
import { resolveProvider } from "../../src/llm/providers";
import { DEFAULT_WORKERS_AI_MODEL } from "../../src/llm/workers-ai";
import { driveExecution } from "../../src/executions/drive";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { FAKE, modelRequests, newScenario, openai } from "../conversations/helpers";

/**
 * A deployment with its own OpenAI-compatible key (the fake model server) and, when asked, a
 * Workers AI binding. Its queue only records: nothing here reaches the shared consumer, whose
 * deployment has no model of its own.
 */
function deployment(scenario: string, vars: Record<string, unknown> = {}) {
  const sent: { body: unknown; options?: QueueSendOptions }[] = [];
  const aiCalls: string[] = [];
  const deployed = {
    ...env,
    OPENAI_API_KEY: "sk-deployment-0123456789",
    OPENAI_BASE_URL: `${FAKE()}/s/${scenario}`,
    OPENAI_MODEL: "fake-gpt",
    MODEL_RATE_LIMIT_PER_MINUTE: "2",
    AI: {
      run: async (model: string) => {
        aiCalls.push(model);
        return { response: "From Workers AI.", usage: { prompt_tokens: 3, completion_tokens: 4 } };
      },
    },
    WORKFLOW_RUNS: { send: async (body: unknown, options?: QueueSendOptions) => void sent.push({ body, options }) },
    ...vars,
  };
  return { env: deployed, sent, aiCalls };
}

async function send(deployed: object, token: string, path: string, body?: unknown): Promise<Response> {
  const ctx = createExecutionContext();
  const request = new Request(`http://hub.test${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "CF-Connecting-IP": "198.51.100.91" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const response = await worker.fetch(request, deployed as never, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** The fake model answers every request of the scenario with this text. */
async function answerAlways(scenario: string, text: string) {
  const response = await fetch(`${FAKE()}/__respond/${scenario}`, { method: "POST", body: JSON.stringify(openai.text(text)) });
  expect(response.status).toBe(204);
}

/** Counters reset on the minute: a counted burst starts well inside one, so it cannot straddle two. */
async function awayFromMinuteEdge() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 48_000) await scheduler.wait(60_000 - intoMinute + 250);
}

async function stepsOf(executionId: string) {
  const { results } = await env.DB.prepare(
    "SELECT step_key, status, attempts, error_message, resume_at FROM execution_steps WHERE execution_id = ? AND type = 'llm' ORDER BY step_key",
  )
    .bind(executionId)
    .all<{ step_key: string; status: string; attempts: number; error_message: string | null; resume_at: number | null }>();
  return results;
}

const statusOf = async (id: string) => (await env.DB.prepare("SELECT status FROM executions WHERE id = ?").bind(id).first<{ status: string }>())!.status;

describe("model calls on the deployment's own key", () => {
  it("are metered per user per minute: the call past the limit is 429 with Retry-After, for chat and the builder alike", async () => {
    const scenario = newScenario("meter");
    await answerAlways(scenario, "Hello from the deployment's model.");
    const { env: deployed } = deployment(scenario);
    const { key } = await newApiKey(await newUser());
    await awayFromMinuteEdge();

    for (let i = 0; i < 2; i++) {
      const answer = await send(deployed, key, "/v1/chat/test", { content: "hi", provider: "openai" });
      expect(answer.status).toBe(200);
      expect(await json(answer)).toMatchObject({ content: "Hello from the deployment's model.", provider: "openai", model: "fake-gpt" });
    }
    const refused = await send(deployed, key, "/v1/chat/test", { content: "hi", provider: "openai" });
    const problem = await expectProblem(refused, 429, "rate_limited");
    expect(problem.detail).toContain("2 model calls on this deployment's keys per minute");
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The builder's model calls count against the same limit.
    await expectProblem(await send(deployed, key, "/v1/workflows/build", { description: "Make an id", provider: "openai" }), 429, "rate_limited");
    // Refused before any request left: the model saw two calls.
    expect(await modelRequests(scenario)).toHaveLength(2);

    // Each user has their own budget.
    const other = await newApiKey(await newUser());
    expect((await send(deployed, other.key, "/v1/chat/test", { content: "hi", provider: "openai" })).status).toBe(200);
  }, 40_000);

  it("an llm step over the limit does not fail: its run parks until the window resets, then goes on without spending an attempt", async () => {
    const scenario = newScenario("meterstep");
    await answerAlways(scenario, "A line.");
    const { env: deployed, sent } = deployment(scenario);
    const { key } = await newApiKey(await newUser());
    const workflow = await json(
      await call("/v1/workflows", {
        token: key,
        json: {
          workflow_name: "Lines",
          description: "",
          steps: [
            {
              id: "each",
              type: "for_each",
              items: "{{input.topics}}",
              // One attempt only: a rate limit must not count as one.
              steps: [{ id: "line", type: "llm", provider: "openai", prompt: "A line about {{item}}.", retry: { max_attempts: 1, delay_seconds: 0 } }],
            },
          ],
        },
      }),
    );
    await awayFromMinuteEdge();
    const started = await send(deployed, key, `/v1/workflows/${workflow.id}/execute`, { input_data: { topics: ["spring", "summer", "autumn"] } });
    expect(started.status).toBe(202);
    const id = (await json(started)).execution_id as string;

    // Two calls went through; the third waits for the next window, the run holding no worker.
    const parked = await stepsOf(id);
    expect(parked.map((s) => [s.step_key, s.status, s.attempts])).toEqual([
      ["line#0", "succeeded", 1],
      ["line#1", "succeeded", 1],
      ["line#2", "retrying", 0],
    ]);
    expect(parked[2]!.error_message).toContain("model calls on this deployment's keys");
    const waitMs = parked[2]!.resume_at! - Date.now();
    expect(waitMs).toBeGreaterThan(0);
    expect(waitMs).toBeLessThanOrEqual(61_000);
    expect(await statusOf(id)).not.toBe("failed");
    expect(await modelRequests(scenario)).toHaveLength(2);
    // Its wake-up is queued for when the window resets.
    const wakeUp = sent.find((m) => (m.options?.delaySeconds ?? 0) >= 1);
    expect(wakeUp?.body).toEqual({ kind: "execution", execution_id: id });
    expect(wakeUp!.options!.delaySeconds).toBeLessThanOrEqual(61);

    // The window resets (here: its wake-up time is brought forward and the limit raised): the
    // run carries on from its checkpoints and asks only for the item left.
    await env.DB.batch([
      env.DB.prepare("UPDATE execution_steps SET resume_at = ? WHERE execution_id = ? AND status = 'retrying'").bind(Date.now() - 1000, id),
      env.DB.prepare("UPDATE executions SET lease_until = ? WHERE id = ?").bind(Date.now() - 1000, id),
    ]);
    const later = deployment(scenario, { MODEL_RATE_LIMIT_PER_MINUTE: "10" });
    expect(await driveExecution(runtimeFor(later.env as never), id)).toMatchObject({ done: true });
    expect(await statusOf(id)).toBe("succeeded");
    expect((await stepsOf(id)).map((s) => [s.step_key, s.status, s.attempts])).toEqual([
      ["line#0", "succeeded", 1],
      ["line#1", "succeeded", 1],
      ["line#2", "succeeded", 1],
    ]);
    expect(await modelRequests(scenario)).toHaveLength(3);
  }, 40_000);

  it("only takes the models the deployment allows: the configured one, and ALLOWED_MODELS", async () => {
    const scenario = newScenario("allowed");
    await answerAlways(scenario, "Fine.");
    const { env: deployed, aiCalls } = deployment(scenario, { MODEL_RATE_LIMIT_PER_MINUTE: "50" });
    const user = await newUser();
    const { key } = await newApiKey(user);
    const run = async (steps: unknown[]) => {
      const workflow = await json(await call("/v1/workflows", { token: key, json: { workflow_name: "Models", description: "", steps } }));
      const started = await send(deployed, key, `/v1/workflows/${workflow.id}/execute`, {});
      expect(started.status).toBe(202);
      return json(await call(`/v1/executions/${(await json(started)).execution_id}`, { token: key }));
    };

    const openaiRun = await run([
      { id: "plain", type: "llm", provider: "openai", prompt: "Hi." },
      { id: "named", type: "llm", provider: "openai", model: "fake-gpt", prompt: "Hi." },
      { id: "pricey", type: "llm", provider: "openai", model: "gpt-pricey", prompt: "Hi.", retry: { max_attempts: 3, delay_seconds: 0 } },
    ]);
    expect(openaiRun).toMatchObject({ status: "failed", failed_step_id: "pricey" });
    expect(openaiRun.error_message).toContain('Model "gpt-pricey" is not allowed');
    expect(openaiRun.error_message).toContain("allowed: fake-gpt.");
    // A refusal, not a failed call: no retry, and nothing was sent for it.
    expect(openaiRun.steps[2].attempts).toBe(1);
    expect((await modelRequests(scenario)).map((r: any) => r.body.model)).toEqual(["fake-gpt", "fake-gpt"]);

    // The Workers AI binding is the deployment's too.
    const workersRun = await run([
      { id: "plain", type: "llm", provider: "workers-ai", prompt: "Hi." },
      { id: "other", type: "llm", provider: "workers-ai", model: "@cf/some/other-model", prompt: "Hi." },
    ]);
    expect(workersRun).toMatchObject({ status: "failed", failed_step_id: "other" });
    expect(workersRun.error_message).toContain(`allowed: ${DEFAULT_WORKERS_AI_MODEL}.`);
    expect(aiCalls).toEqual([DEFAULT_WORKERS_AI_MODEL]);

    // A service naming a model it may not use is told which field is wrong (REST renders it as 422).
    const ctx = delegatedContext(runtimeFor(deployed as never), user.id, "key_0");
    const refusal = await resolveProvider(ctx, "openai", "gpt-pricey").catch((error) => error);
    expect(refusal).toBeInstanceOf(HubError);
    expect(refusal).toMatchObject({ code: "validation_failed", errors: [expect.objectContaining({ field: "model" })] });

    // ALLOWED_MODELS adds models; the providers list says which may be named.
    const wider = deployment(scenario, { MODEL_RATE_LIMIT_PER_MINUTE: "50", ALLOWED_MODELS: "fake-gpt-mini, fake-gpt-large" });
    const providers = await json(await send(wider.env, key, "/v1/chat/providers"));
    expect(providers.providers.find((p: any) => p.id === "openai")).toMatchObject({
      source: "deployment",
      models: ["fake-gpt", "fake-gpt-mini", "fake-gpt-large"],
      default_model: "fake-gpt",
    });
    const workflow = await json(
      await call("/v1/workflows", {
        token: key,
        json: { workflow_name: "Mini", description: "", steps: [{ id: "mini", type: "llm", provider: "openai", model: "fake-gpt-mini", prompt: "Hi." }] },
      }),
    );
    const started = await send(wider.env, key, `/v1/workflows/${workflow.id}/execute`, {});
    expect(await statusOf((await json(started)).execution_id)).toBe("succeeded");
    expect((await modelRequests(scenario)).at(-1).body.model).toBe("fake-gpt-mini");
  }, 40_000);

  it("a chat turn past the limit ends as an error message that says so, the user's message kept", async () => {
    const scenario = newScenario("meterturn");
    await answerAlways(scenario, "Hello.");
    const { env: deployed } = deployment(scenario);
    const user = await newUser();
    const ctx = delegatedContext(runtimeFor(deployed as never), user.id, "key_0");
    const events = { message: () => undefined, toolProgress: () => undefined, toolStarted: () => undefined };
    // A conversation's own object keeps its messages; the turn runs there on the deployment's key.
    const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(`metering:${scenario}`));
    await awayFromMinuteEdge();
    const replies = await runInDurableObject(stub, async (_instance, state) => {
      const store = new MessageStore(state.storage.sql);
      const turn = (content: string) => runTurn(ctx, store, { conversationId: 1, userId: user.id, credentialId: "key_0", content, provider: "openai" }, events);
      return { answers: [await turn("one"), await turn("two"), await turn("three")], stored: store.list(1) };
    });
    expect(replies.answers.map((m) => m.status)).toEqual(["completed", "completed", "error"]);
    expect(replies.answers[2]!.error_message).toContain("2 model calls on this deployment's keys per minute");
    expect(replies.stored.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["one", "two", "three"]);
    expect(await modelRequests(scenario)).toHaveLength(2);
  }, 40_000);

  it("a user's own connection is neither metered nor limited to the deployment's models", async () => {
    const deploymentScenario = newScenario("meterdep");
    const ownScenario = newScenario("meterown");
    await answerAlways(ownScenario, "Mine.");
    const { env: deployed } = deployment(deploymentScenario, { MODEL_RATE_LIMIT_PER_MINUTE: "1" });
    const { key } = await newApiKey(await newUser());
    const connected = await call("/v1/connections", {
      token: key,
      json: { platform: "openai", name: "Mine", config: { api_key: "sk-own-0123456789abcdef", base_url: `${FAKE()}/s/${ownScenario}`, model: "my-gpt" } },
    });
    expect(connected.status).toBe(201);

    for (let i = 0; i < 3; i++) expect((await send(deployed, key, "/v1/chat/test", { content: "hi", provider: "openai" })).status).toBe(200);
    const workflow = await json(
      await call("/v1/workflows", {
        token: key,
        json: {
          workflow_name: "Own",
          description: "",
          steps: [
            {
              id: "each",
              type: "for_each",
              items: [1, 2, 3],
              steps: [{ id: "line", type: "llm", provider: "openai", model: "any-model-at-all", prompt: "{{item}}" }],
            },
          ],
        },
      }),
    );
    const started = await send(deployed, key, `/v1/workflows/${workflow.id}/execute`, {});
    expect(await statusOf((await json(started)).execution_id)).toBe("succeeded");
    const requests = await modelRequests(ownScenario);
    expect(requests.map((r: any) => r.body.model)).toEqual(["my-gpt", "my-gpt", "my-gpt", "any-model-at-all", "any-model-at-all", "any-model-at-all"]);
    expect(await modelRequests(deploymentScenario)).toEqual([]);
  });
});
