import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { FAKE, newScenario } from "../conversations/helpers";
import { execute, newWorkflow, runCron, settled } from "../helpers/runs";

async function hmacHex(secret: string, message: string) {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message)));
  return [...mac].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Polls the execution's detail until its notification has `status` after at least one finished attempt. */
async function notificationOf(key: string, executionId: string, status: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const detail = await json(await call(`/v1/executions/${executionId}`, { token: key }));
    const [notification] = detail.notifications;
    if (notification?.status === status && notification.attempt_log.length > 0) return notification;
    if (Date.now() > deadline) throw new Error(`notification still ${JSON.stringify(notification)}`);
    await scheduler.wait(100);
  }
}

const respond = (scenario: string, status: number) =>
  fetch(`${FAKE()}/__respond/${scenario}`, { method: "POST", body: JSON.stringify({ status, body: { ok: status < 300 } }) });

describe("workflow settings: concurrency, on_failure, notify", () => {
  it("concurrency: never more of the workflow's runs going at once than allowed; the others wait their turn", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      settings: { concurrency: 1 },
      steps: [{ id: "slow", type: "tool", tool: "wait", arguments: { seconds: 1 } }],
    });
    const ids = await Promise.all([1, 2, 3].map(() => execute(key, workflow.id)));
    const runs = await Promise.all(ids.map((id) => settled(key, id, 30_000)));
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    const spans = runs.map((r) => ({ start: Date.parse(r.steps[0].started_at), end: Date.parse(r.steps[0].finished_at) })).sort((a, b) => a.start - b.start);
    // One after another: each starts once the one before it has finished.
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
  }, 40_000);

  it("on_failure: a failed run starts the error workflow with {execution, error}; a successful one does not", async () => {
    const { key } = await newApiKey(await newUser());
    const handler = await newWorkflow(key, {
      steps: [
        { id: "note", type: "tool", tool: "text_template", arguments: { template: "Run {{input.execution.id}} failed at {{input.execution.failed_step_id}}" } },
      ],
    });
    const workflow = await newWorkflow(key, {
      settings: { on_failure: { workflow_id: handler.id } },
      steps: [{ id: "total", type: "tool", tool: "math_evaluate", arguments: { expression: "{{input.expression}}" } }],
    });
    const failed = await settled(key, await execute(key, workflow.id, { expression: "2 *" }));
    expect(failed.status).toBe("failed");
    const handled = await (async () => {
      for (let i = 0; i < 200; i++) {
        const row = await env.DB.prepare("SELECT id FROM executions WHERE workflow_id = ? AND parent_execution_id = ?")
          .bind(handler.id, failed.id)
          .first<{ id: string }>();
        if (row) return settled(key, row.id);
        await scheduler.wait(50);
      }
      throw new Error("the error workflow did not start");
    })();
    expect(handled.status).toBe("succeeded");
    expect(handled.input_data).toMatchObject({
      execution: { id: failed.id, workflow_id: workflow.id, failed_step_id: "total", input_data: { expression: "2 *" } },
    });
    expect(handled.input_data.error).toBe(failed.error_message);
    expect(handled.steps[0].result.text).toBe(`Run ${failed.id} failed at total`);

    await settled(key, await execute(key, workflow.id, { expression: "2 * 3" }));
    const { n } = (await env.DB.prepare("SELECT count(*) AS n FROM executions WHERE workflow_id = ?").bind(handler.id).first<{ n: number }>())!;
    expect(n).toBe(1);
  });

  it("notify: a signed POST of each finished run, retried with backoff, every attempt visible on the execution", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("notify");
    const url = `${FAKE()}/s/${scenario}/hook`;
    const created = await call("/v1/workflows", {
      token: key,
      json: { workflow_name: "Notified", description: "", settings: { notify: { url } }, steps: [{ id: "a", type: "set", values: { x: 1 } }] },
    });
    expect(created.status).toBe(201);
    const workflow = await json(created);
    expect(workflow.notify_secret).toMatch(/^whsec_/);
    expect(workflow.settings.notify).toEqual({ url, events: ["execution.succeeded", "execution.failed"] });
    // Shown once: never again on reads or later saves.
    expect((await json(await call(`/v1/workflows/${workflow.id}`, { token: key }))).notify_secret).toBeUndefined();
    const renamed = await json(
      await call(`/v1/workflows/${workflow.id}`, { method: "PUT", token: key, json: { name: "Notified, renamed", settings: { notify: { url } } } }),
    );
    expect(renamed.notify_secret).toBeUndefined();

    // The receiver is down at first: the attempt is logged and the next is scheduled.
    await respond(scenario, 503);
    const id = await execute(key, workflow.id);
    await settled(key, id);
    const first = await notificationOf(key, id, "pending");
    expect(first).toMatchObject({ event: "execution.succeeded", url, attempts: 1, status: "pending" });
    expect(first.attempt_log).toEqual([expect.objectContaining({ status_code: 503, error: "The receiver answered 503." })]);
    const wait = Date.parse(first.next_attempt_at) - Date.parse(first.attempt_log[0].at);
    expect(wait).toBe(10_000);

    // It is back; the retry falls due (its queue message is replaced by the sweep here).
    await respond(scenario, 204);
    await env.DB.prepare("UPDATE execution_notifications SET next_attempt_at = ? WHERE id = ?")
      .bind(Date.now() - 60_000, first.id)
      .run();
    await runCron();
    const delivered = await notificationOf(key, id, "delivered");
    expect(delivered.attempts).toBe(2);
    expect(delivered.attempt_log.map((a: any) => a.status_code)).toEqual([503, 204]);

    // What the receiver got, and how it checks it came from the hub.
    const requests: any[] = await (await fetch(`${FAKE()}/__requests/${scenario}`)).json();
    const last = requests.at(-1);
    expect(last.headers["x-hub-event"]).toBe("execution.succeeded");
    expect(last.headers["idempotency-key"]).toBe(first.id);
    const expected = await hmacHex(workflow.notify_secret, `${last.headers["x-hub-timestamp"]}.${last.raw}`);
    expect(last.headers["x-hub-signature"]).toBe(`sha256=${expected}`);
    expect(JSON.parse(last.raw)).toMatchObject({
      id: first.id,
      event: "execution.succeeded",
      execution: { id, status: "succeeded", workflow_id: workflow.id },
    });
  }, 30_000);

  it("notify: only the events asked for; a refused address is given up at once; removing notify forgets the secret", async () => {
    const { key } = await newApiKey(await newUser());
    const onlyFailures = await newWorkflow(key, {
      settings: { notify: { url: "http://169.254.169.254/latest/meta-data", events: ["execution.failed"] } },
      steps: [{ id: "total", type: "tool", tool: "math_evaluate", arguments: { expression: "{{input.expression}}" } }],
    });
    const ok = await settled(key, await execute(key, onlyFailures.id, { expression: "1 + 1" }));
    expect((await json(await call(`/v1/executions/${ok.id}`, { token: key }))).notifications).toEqual([]);
    const failedRun = await settled(key, await execute(key, onlyFailures.id, { expression: "1 +" }));
    const refused = await notificationOf(key, failedRun.id, "failed");
    expect(refused).toMatchObject({ event: "execution.failed", attempts: 1, next_attempt_at: null });
    expect(refused.attempt_log[0].error).toContain("never reachable");

    await call(`/v1/workflows/${onlyFailures.id}`, { method: "PUT", token: key, json: { settings: {} } });
    const row = await env.DB.prepare("SELECT notify_secret FROM workflows WHERE id = ?").bind(onlyFailures.id).first<{ notify_secret: string | null }>();
    expect(row!.notify_secret).toBeNull();
  });

  it("refuses malformed settings, naming the field", async () => {
    const { key } = await newApiKey(await newUser());
    const cases: [unknown, string][] = [
      [{ concurrency: 0 }, "settings.concurrency"],
      [{ concurrency: 101 }, "settings.concurrency"],
      [{ on_failure: { workflow_id: "x" } }, "settings.on_failure.workflow_id"],
      [{ notify: { url: "ftp://example.com/hook" } }, "settings.notify.url"],
      [{ notify: { url: "https://example.com/hook", events: ["execution.started"] } }, "settings.notify.events.0"],
      [{ notify: { url: "https://example.com/hook", events: [] } }, "settings.notify.events"],
    ];
    for (const [settings, field] of cases) {
      const problem = await expectProblem(
        await call("/v1/workflows", { token: key, json: { workflow_name: "x", description: "", settings, steps: [] } }),
        422,
        "validation_failed",
      );
      expect(problem.errors!.map((e: any) => e.field)).toContain(field);
    }
  });
});
