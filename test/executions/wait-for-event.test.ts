import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resumeStaleExecutions } from "../../src/executions/sweep";
import { validateSteps } from "../../src/workflows/steps";
import worker from "../../src/index";
import { createDb } from "../../src/db/client";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, reaches, settled } from "../helpers/runs";

/** An approval before a send: the draft is made, the run waits for "approved", then it sends. */
const approvalFlow = (timeoutSeconds = 3600, onTimeout?: "fail" | "continue") => [
  { id: "draft", type: "tool", tool: "text_template", arguments: { template: "Spring sale for {{input.segment}}" } },
  { id: "approve", type: "wait_for_event", event: "campaign.approved", timeout_seconds: timeoutSeconds, ...(onTimeout ? { on_timeout: onTimeout } : {}) },
  { id: "send", type: "tool", tool: "text_template", arguments: { template: 'Sent, approved by {{steps.approve.result.by | default: "nobody"}}' } },
];

const deliver = (key: string, id: string, body: unknown) => call(`/v1/executions/${id}/events`, { token: key, json: body });
const toolCalls = async (workflowId: number) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_logs WHERE source = ?").bind(`workflow:${workflowId}`).first<{ n: number }>())!.n;

describe("wait_for_event steps and POST /v1/executions/{id}/events", () => {
  it("parks the run until the event arrives, then carries on with the payload as the step's result", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: approvalFlow() });
    const id = await execute(key, workflow.id, { segment: "VIP" });
    await reaches(id, "waiting");

    const parked = await json(await call(`/v1/executions/${id}`, { token: key }));
    expect(parked.status).toBe("waiting");
    expect(parked.steps.map((s: any) => [s.step_id, s.status])).toEqual([
      ["draft", "succeeded"],
      ["approve", "waiting"],
    ]);
    // The timeout is when the step gives up waiting.
    const timeoutAt = Date.parse(parked.steps[1].resume_at);
    expect(timeoutAt).toBeGreaterThan(Date.now() + 3500_000);

    // Only the event the step waits for resumes it.
    const wrong = await expectProblem(await deliver(key, id, { event: "campaign.rejected" }), 409, "conflict");
    expect(wrong.detail).toContain("campaign.approved");
    expect((await deliver(key, id, { event: "campaign.approved", payload: { by: "Ada" } })).status).toBe(202);

    const finished = await settled(key, id);
    expect(finished.status).toBe("succeeded");
    expect(finished.steps.map((s: any) => [s.step_id, s.status, s.attempts])).toEqual([
      ["draft", "succeeded", 1],
      ["approve", "succeeded", 1],
      ["send", "succeeded", 1],
    ]);
    expect(finished.steps[1].result).toEqual({ by: "Ada" });
    expect(finished.steps[2].result.text).toBe("Sent, approved by Ada");
    // The draft was made once: resuming replayed it from its checkpoint.
    expect(await toolCalls(workflow.id)).toBe(2);

    // Delivered once: a second delivery finds nothing waiting.
    await expectProblem(await deliver(key, id, { event: "campaign.approved", payload: { by: "Eve" } }), 409, "conflict");
  });

  it("fails the run at the timeout, or continues with the step skipped when on_timeout is continue", async () => {
    const { key } = await newApiKey(await newUser());
    const failing = await newWorkflow(key, { steps: approvalFlow(1) });
    const continuing = await newWorkflow(key, { steps: approvalFlow(1, "continue") });
    const [failed, continued] = await Promise.all([
      settled(key, await execute(key, failing.id, { segment: "all" })),
      settled(key, await execute(key, continuing.id, { segment: "all" })),
    ]);
    expect(failed).toMatchObject({ status: "failed", failed_step_id: "approve" });
    expect(failed.error_message).toContain('No "campaign.approved" event arrived within 1 s.');
    expect(failed.steps.map((s: any) => s.step_id)).toEqual(["draft", "approve"]);

    expect(continued.status).toBe("succeeded");
    expect(continued.steps.map((s: any) => [s.step_id, s.status])).toEqual([
      ["draft", "succeeded"],
      ["approve", "skipped"],
      ["send", "succeeded"],
    ]);
    expect(continued.steps[1].error_message).toContain("The run continued.");
    // Nothing arrived: the skipped step has no result, so the placeholder takes its default.
    expect(continued.steps[2].result.text).toBe("Sent, approved by nobody");
  });

  it("refuses events too late, for runs not waiting, for someone else's run, and with bad bodies", async () => {
    const owner = await newApiKey(await newUser());
    const stranger = await newApiKey(await newUser());
    const workflow = await newWorkflow(owner.key, { steps: approvalFlow() });
    const id = await execute(owner.key, workflow.id, { segment: "VIP" });
    await reaches(id, "waiting");

    await expectProblem(await deliver(stranger.key, id, { event: "campaign.approved" }), 404, "not_found");
    await expectProblem(await deliver(owner.key, "exe_nothing", { event: "campaign.approved" }), 404, "not_found");
    await expectProblem(await deliver(owner.key, id, { event: "has spaces" }), 422, "validation_failed");
    await expectProblem(await deliver(owner.key, id, { payload: {} }), 422, "validation_failed");
    await expectProblem(await deliver(owner.key, id, { event: "campaign.approved", payload: "x".repeat(300 * 1024) }), 422, "validation_failed");

    // Past its timeout (the wake-up not there yet), the event is refused: the timeout decides.
    await env.DB.prepare("UPDATE executions SET lease_until = ? WHERE id = ?")
      .bind(Date.now() - 1000, id)
      .run();
    await expectProblem(await deliver(owner.key, id, { event: "campaign.approved" }), 409, "conflict");

    // A waiting run can be cancelled, and then takes no event.
    await env.DB.prepare("UPDATE executions SET lease_until = ? WHERE id = ?")
      .bind(Date.now() + 3600_000, id)
      .run();
    const cancelled = await call(`/v1/executions/${id}/cancel`, { method: "POST", token: owner.key });
    expect((await json(cancelled)).status).toBe("cancelled");
    const notWaiting = await expectProblem(await deliver(owner.key, id, { event: "campaign.approved" }), 409, "conflict");
    expect(notWaiting.detail).toContain("cancelled");
  });

  it("counts waiting runs against the unfinished-runs quota (more in run-limits.test.ts)", async () => {
    const tight = { ...env, MAX_RUNNING_EXECUTIONS_PER_USER: "1" };
    const { key } = await newApiKey(await newUser());
    const start = async (workflowId: number) => {
      const ctx = createExecutionContext();
      const request = new Request(`http://hub.test/v1/workflows/${workflowId}/execute`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "CF-Connecting-IP": "198.51.100.79" },
        body: JSON.stringify({ input_data: {} }),
      });
      const response = await worker.fetch(request, tight as never, ctx);
      await waitOnExecutionContext(ctx);
      return response;
    };
    const workflow = await newWorkflow(key, { steps: [{ id: "approve", type: "wait_for_event", event: "go", timeout_seconds: 3600 }] });
    const first = await start(workflow.id);
    expect(first.status).toBe(202);
    const id = (await json(first)).execution_id as string;
    await reaches(id, "waiting");
    // With a quota of one unfinished run, a run that only waits still holds it.
    await expectProblem(await start(workflow.id), 409, "quota_exceeded");
    expect((await call(`/v1/executions/${id}/cancel`, { method: "POST", token: key })).status).toBe(200);
    expect((await start(workflow.id)).status).toBe(202);
  });

  it("survives the process dying around a wait: a lost wake-up or a lost resume is found by the sweep", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, { steps: approvalFlow(3600, "continue") });
    const db = createDb(env.DB);

    // 1. The event was delivered (its writes are in D1) but the process died before anything
    //    ran the rest, and the queue lost its message: the sweep resumes the run.
    const delivered = await execute(key, workflow.id, { segment: "A" });
    await reaches(delivered, "waiting");
    await env.DB.batch([
      env.DB.prepare("UPDATE execution_steps SET status = 'succeeded', result = ?, resume_at = NULL WHERE execution_id = ? AND step_id = 'approve'").bind(
        JSON.stringify({ by: "Grace" }),
        delivered,
      ),
      env.DB.prepare("UPDATE executions SET status = 'queued', lease_until = NULL, updated_at = ? WHERE id = ?").bind(Date.now() - 60_000, delivered),
    ]);

    // 2. The timeout passed while the process was down and its wake-up message was lost.
    const timedOut = await execute(key, workflow.id, { segment: "B" });
    await reaches(timedOut, "waiting");
    const past = Date.now() - 60_000;
    await env.DB.batch([
      env.DB.prepare("UPDATE executions SET lease_until = ? WHERE id = ?").bind(past, timedOut),
      env.DB.prepare("UPDATE execution_steps SET resume_at = ? WHERE execution_id = ? AND step_id = 'approve'").bind(past, timedOut),
    ]);

    expect(await resumeStaleExecutions({ db, bindings: env } as never)).toBeGreaterThanOrEqual(2);
    const [first, second] = await Promise.all([settled(key, delivered), settled(key, timedOut)]);
    expect(first.status).toBe("succeeded");
    expect(first.steps[2].result.text).toBe("Sent, approved by Grace");
    expect(second.status).toBe("succeeded");
    expect(second.steps[1].status).toBe("skipped");
    // Each draft ran once, each send once: nothing finished before the wait ran again.
    expect(await toolCalls(workflow.id)).toBe(4);
  }, 30_000);
});

describe("wait_for_event validation (properties)", () => {
  const eventName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/);

  it("accepts every well-formed wait step", () => {
    fc.assert(
      fc.property(eventName, fc.integer({ min: 1, max: 30 * 24 * 3600 }), fc.constantFrom("fail", "continue", undefined), (event, timeout, onTimeout) => {
        const { steps, errors } = validateSteps([{ id: "wait", type: "wait_for_event", event, timeout_seconds: timeout, on_timeout: onTimeout }]);
        expect(errors).toEqual([]);
        expect(steps[0]).toMatchObject({ event, timeout_seconds: timeout, on_timeout: onTimeout ?? "fail" });
      }),
    );
  });

  it("names the field of every malformed wait step", () => {
    const bad = fc.oneof(
      fc
        .record({ event: fc.string().filter((s) => !/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/.test(s)), timeout_seconds: fc.constant(60) })
        .map((v) => ["event", v] as const),
      fc
        .record({
          event: eventName,
          timeout_seconds: fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 30 * 24 * 3600 + 1 }), fc.double({ min: 1.1, max: 2.9, noInteger: true })),
        })
        .map((v) => ["timeout_seconds", v] as const),
      fc
        .record({ event: eventName, timeout_seconds: fc.constant(60), on_timeout: fc.string().filter((s) => s !== "fail" && s !== "continue") })
        .map((v) => ["on_timeout", v] as const),
    );
    fc.assert(
      fc.property(bad, ([field, fields]) => {
        const { errors } = validateSteps([{ id: "wait", type: "wait_for_event", ...fields }]);
        expect(errors.map((e) => e.field)).toContain(`steps.0.${field}`);
      }),
    );
  });
});
