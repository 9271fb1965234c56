// Tool steps against platforms that fail the way real ones do (DESIGN §5 "Permanent and transient
// failures"): a permanent answer fails the step at once, with the platform's message and one
// request made, unless `retry.on` lists its status; a transient one is retried, after the
// platform's Retry-After when that is longer than the policy's delay.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, settled } from "../helpers/runs";

const FAKE = () => env.TEST_FAKE_URL;
const newScenario = () => `pf${crypto.randomUUID().replace(/-/g, "")}`;

async function connect(key: string, platform: string, config: Record<string, unknown>): Promise<number> {
  const response = await call("/v1/connections", { token: key, json: { platform, name: `${platform} for tests`, config } });
  expect(response.status).toBe(201);
  return (await json(response)).connection_id;
}

const requestsOf = async (scenario: string): Promise<any[]> => (await fetch(`${FAKE()}/__requests/${scenario}`)).json();
async function script(scenario: string, answers: { status: number; body: unknown; headers?: Record<string, string> }[]) {
  expect((await fetch(`${FAKE()}/__script/${scenario}`, { method: "POST", body: JSON.stringify(answers) })).status).toBe(204);
}

/** A user with a HubSpot connection on a fresh scenario where ada@example.com already exists. */
async function hubspotWithAda() {
  const { key } = await newApiKey(await newUser());
  const scenario = newScenario();
  await connect(key, "hubspot", { access_token: "pat-na1-test-0123456789", base_url: `${FAKE()}/s/${scenario}` });
  const created = await json(
    await call("/v1/tools/execute", { token: key, json: { name: "hubspot_create_contact", arguments: { email: "ada@example.com" } } }),
  );
  expect(created).toMatchObject({ success: true, result: { id: "151" } });
  return { key, scenario };
}

const createAda = (retry: Record<string, unknown>) => ({
  steps: [{ id: "contact", type: "tool", tool: "hubspot_create_contact", arguments: { email: "ada@example.com", firstname: "Ada" }, retry }],
});

/** Waits (bounded) until a step's record reaches `status`, and returns the execution as the API shows it. */
async function stepReaches(key: string, executionId: string, stepId: string, status: string) {
  for (let i = 0; i < 200; i++) {
    const row = await env.DB.prepare("SELECT status FROM execution_steps WHERE execution_id = ? AND step_id = ?")
      .bind(executionId, stepId)
      .first<{ status: string }>();
    if (row?.status === status) return json(await call(`/v1/executions/${executionId}`, { token: key }));
    await scheduler.wait(50);
  }
  throw new Error(`step ${stepId} of ${executionId} never reached ${status}`);
}

describe("permanent failures fail the step at once", () => {
  it("HubSpot's 409 for an existing contact: one attempt, one request, HubSpot's message", async () => {
    const { key, scenario } = await hubspotWithAda();
    const workflow = await newWorkflow(key, createAda({ max_attempts: 3, delay_seconds: 0 }));
    const run = await settled(key, await execute(key, workflow.id));
    expect(run.status).toBe("failed");
    expect(run.steps[0]).toMatchObject({ step_id: "contact", status: "failed", attempts: 1 });
    expect(run.steps[0].error_message).toBe("HubSpot CRM answered 409: Contact already exists. Existing ID: 151");
    expect(run.error_message).toContain("HubSpot CRM answered 409: Contact already exists. Existing ID: 151");
    // The contact created before, then the step's single try.
    expect((await requestsOf(scenario)).filter((r) => r.method === "POST")).toHaveLength(2);
  });

  it("retry.on: [409] retries it per the policy (here the conflict clears on the second try)", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario();
    await connect(key, "hubspot", { access_token: "pat-na1-test-0123456789", base_url: `${FAKE()}/s/${scenario}` });
    await script(scenario, [{ status: 409, body: { status: "error", message: "Contact already exists. Existing ID: 77", category: "CONFLICT" } }]);
    const workflow = await newWorkflow(key, createAda({ max_attempts: 3, delay_seconds: 0, on: [409] }));
    const run = await settled(key, await execute(key, workflow.id));
    expect(run.status).toBe("succeeded");
    expect(run.steps[0]).toMatchObject({ status: "succeeded", attempts: 2, result: { id: "151", created: true } });
    expect(await requestsOf(scenario)).toHaveLength(2);
  });

  it("Slack's not_in_channel fails the step at once with Slack's message", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario();
    await connect(key, "slack", { bot_token: "xoxb-test-0123456789", base_url: `${FAKE()}/s/${scenario}` });
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "alert", type: "tool", tool: "slack_send_message", arguments: { channel: "#random", text: "hi" }, retry: { max_attempts: 3, delay_seconds: 0 } },
      ],
    });
    const run = await settled(key, await execute(key, workflow.id));
    expect(run.status).toBe("failed");
    expect(run.steps[0]).toMatchObject({ status: "failed", attempts: 1, error_message: expect.stringMatching(/^Slack answered not_in_channel: /) });
    expect(await requestsOf(scenario)).toHaveLength(1);
  });

  it("arguments that do not fit the tool's schema fail the step at once, naming the argument, nothing sent", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario();
    await connect(key, "hubspot", { access_token: "pat-na1-test-0123456789", base_url: `${FAKE()}/s/${scenario}` });
    const workflow = await newWorkflow(key, {
      steps: [
        {
          id: "contact",
          type: "tool",
          tool: "hubspot_create_contact",
          arguments: { email: "{{input.email}}", firstname: "Jon" },
          retry: { max_attempts: 3, delay_seconds: 30 },
        },
      ],
    });
    const started = Date.now();
    // With the policy's 30 s between attempts, a retried refusal would still be running here.
    const run = await settled(key, await execute(key, workflow.id, { email: "jon@example" }), 15_000);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(run.status).toBe("failed");
    expect(run.steps[0]).toMatchObject({ step_id: "contact", status: "failed", attempts: 1 });
    expect(run.steps[0].error_message).toMatch(/^hubspot_create_contact refused its arguments: email: /);
    expect(run.error_message).toContain("email: ");
    expect(await requestsOf(scenario)).toHaveLength(0);
  });

  it("a tool's own failure (not a platform's) is retried as before", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [{ id: "calc", type: "tool", tool: "math_evaluate", arguments: { expression: "1 / (" }, retry: { max_attempts: 2, delay_seconds: 0 } }],
    });
    const run = await settled(key, await execute(key, workflow.id));
    expect(run.steps[0]).toMatchObject({ status: "failed", attempts: 2 });
  });
});

describe("transient failures are retried", () => {
  it("a 503 then a 200 succeeds on the retry", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario();
    await connect(key, "hubspot", { access_token: "pat-na1-test-0123456789", base_url: `${FAKE()}/s/${scenario}` });
    await script(scenario, [{ status: 503, body: { status: "error", message: "Service Unavailable", category: "INTERNAL_ERROR" } }]);
    const workflow = await newWorkflow(key, createAda({ max_attempts: 3, delay_seconds: 0 }));
    const run = await settled(key, await execute(key, workflow.id), 30_000);
    expect(run.status).toBe("succeeded");
    expect(run.steps[0]).toMatchObject({ status: "succeeded", attempts: 2, result: { id: "151" } });
  });

  it("a 429 parks the step until its Retry-After when that is longer than the policy's delay", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario();
    await connect(key, "slack", { bot_token: "xoxb-test-0123456789", base_url: `${FAKE()}/s/${scenario}` });
    await script(scenario, [{ status: 429, body: { ok: false, error: "ratelimited" }, headers: { "Retry-After": "120" } }]);
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "alert", type: "tool", tool: "slack_send_message", arguments: { channel: "#general", text: "hi" }, retry: { max_attempts: 3, delay_seconds: 2 } },
      ],
    });
    const before = Date.now();
    const id = await execute(key, workflow.id);
    const parked = await stepReaches(key, id, "alert", "retrying");
    const after = Date.now();
    expect(parked.steps[0]).toMatchObject({ status: "retrying", attempts: 1, error_message: expect.stringContaining("Slack answered 429: ratelimited") });
    const resumeAt = Date.parse(parked.steps[0].resume_at);
    expect(resumeAt).toBeGreaterThanOrEqual(before + 120_000);
    expect(resumeAt).toBeLessThanOrEqual(after + 120_000);
    expect((await call(`/v1/executions/${id}/cancel`, { method: "POST", token: key })).status).toBe(200);
  });
});

describe("http_request and error statuses", () => {
  it("a 404 fails the step at once; with allow_error_status it succeeds with ok:false", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario();
    const url = `${FAKE()}/s/${scenario}/nothing-here`;
    const workflow = await newWorkflow(key, {
      steps: [{ id: "get", type: "tool", tool: "http_request", arguments: { url }, retry: { max_attempts: 3, delay_seconds: 0 } }],
    });
    const run = await settled(key, await execute(key, workflow.id));
    expect(run.status).toBe("failed");
    expect(run.steps[0]).toMatchObject({ status: "failed", attempts: 1, error_message: `${new URL(url).host} answered 404: no fake for GET /nothing-here` });
    expect(await requestsOf(scenario)).toHaveLength(1);

    const tolerant = await newWorkflow(key, { steps: [{ id: "get", type: "tool", tool: "http_request", arguments: { url, allow_error_status: true } }] });
    const ok = await settled(key, await execute(key, tolerant.id));
    expect(ok.status).toBe("succeeded");
    expect(ok.steps[0].result).toMatchObject({ ok: false, status: 404, body: { message: "no fake for GET /nothing-here" } });
  });

  it("a 502 is retried, and succeeds when the server is back", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario();
    await script(scenario, [{ status: 502, body: { message: "bad gateway" } }]);
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "get", type: "tool", tool: "http_request", arguments: { url: `${FAKE()}/s/${scenario}/things/7` }, retry: { max_attempts: 2, delay_seconds: 0 } },
      ],
    });
    const run = await settled(key, await execute(key, workflow.id));
    expect(run.steps[0]).toMatchObject({ status: "succeeded", attempts: 2, result: { status: 200, ok: true, body: { id: "7", kind: "thing" } } });
  });
});

describe("the retry policy's `on`", () => {
  it("takes HTTP statuses only: 100–599, at most 20", async () => {
    const { key } = await newApiKey(await newUser());
    const step = (on: unknown) => ({
      steps: [{ id: "a", type: "tool", tool: "math_evaluate", arguments: { expression: "1" }, retry: { max_attempts: 2, on } }],
    });
    for (const on of [[99], [600], [409.5], Array.from({ length: 21 }, (_, i) => 400 + i), "409"]) {
      const response = await call("/v1/workflows", { token: key, json: { workflow_name: "bad retry", description: "for tests", ...step(on) } });
      expect(response.status, JSON.stringify(on)).toBe(422);
    }
    expect(await newWorkflow(key, step([409, 423]))).toMatchObject({
      steps: [expect.objectContaining({ retry: expect.objectContaining({ on: [409, 423] }) })],
    });
  });
});
