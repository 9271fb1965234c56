// Per-step error handling (DESIGN §6.5): `on_error: "continue" | {steps}` lets a run go on past a
// step that failed once its attempts are spent; later steps read the failure, the run ends
// succeeded with `errors_handled`, and `settings.on_failure` does not start. A handler that fails
// fails the run as any step does.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, reaches, settled } from "../helpers/runs";

/** `math_evaluate` refuses an expression cut short: a tool step that fails at once, with no platform. */
const failingTool = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: "tool",
  tool: "math_evaluate",
  arguments: { expression: "2 *" },
  ...extra,
});
const template = (id: string, text: string) => ({ id, type: "tool", tool: "text_template", arguments: { template: text } });

const runsOf = async (workflowId: number) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM executions WHERE workflow_id = ?").bind(workflowId).first<{ n: number }>())!.n;
const toolCalls = async (workflowId: number, tool: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_logs WHERE source = ? AND tool = ?").bind(`workflow:${workflowId}`, tool).first<{ n: number }>())!.n;

/** A user with an error workflow (settings.on_failure) to point workflows at. */
async function userWithErrorWorkflow() {
  const { key } = await newApiKey(await newUser());
  const errorWorkflow = await newWorkflow(key, { steps: [template("note", "failed: {{input.error}}")] });
  return { key, errorWorkflow, settings: { on_failure: { workflow_id: errorWorkflow.id } } };
}

describe("on_error", () => {
  it("continue: retries first, then the run goes on, later steps read the failure, errors_handled counts each (loop items too), no on_failure", async () => {
    const { key, errorWorkflow, settings } = await userWithErrorWorkflow();
    const workflow = await newWorkflow(key, {
      settings,
      steps: [
        template("first", "ok"),
        { id: "flaky", type: "code", code: 'throw new Error("boom")', retry: { max_attempts: 2, delay_seconds: 0 }, on_error: "continue" },
        {
          id: "loop",
          type: "for_each",
          items: ["1 + 1", "2 *"],
          steps: [{ id: "calc", type: "tool", tool: "math_evaluate", arguments: { expression: "{{item}}" }, on_error: "continue" }],
        },
        template("after", "{{steps.first.status}} {{steps.flaky.status}}: {{steps.flaky.error.message}}"),
      ],
    });
    const run = await settled(key, await execute(key, workflow.id));
    expect(run.status).toBe("succeeded");
    expect(run.errors_handled).toBe(2);
    expect(run.error_message).toBeNull();
    const record = (key: string, item: number | null = null) => run.steps.find((s: any) => s.step_id === key && s.item === item);
    expect(record("flaky")).toMatchObject({ status: "failed", attempts: 2 });
    expect(record("flaky").error_message).toContain("boom");
    expect(record("calc", 0)).toMatchObject({ status: "succeeded", result: { result: 2 } });
    expect(record("calc", 1).status).toBe("failed");
    expect(record("after").result.text).toBe(`succeeded failed: ${record("flaky").error_message}`);
    expect(await runsOf(errorWorkflow.id)).toBe(0);
  });

  it("{steps}: the handler runs, then the run goes on; resumed after a wait, the failed step is replayed, not run again", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [
        // Refused arguments fail at once whatever the retry policy: attempts are left when the run resumes.
        {
          id: "total",
          type: "tool",
          tool: "math_evaluate",
          arguments: {},
          retry: { max_attempts: 3, delay_seconds: 0 },
          on_error: { steps: [template("fallback", "fallback for: {{steps.total.error.message}}")] },
        },
        { id: "gate", type: "wait_for_event", event: "go", timeout_seconds: 600 },
        template("after", "{{steps.fallback.result.text}} ({{steps.total.status}})"),
      ],
    });
    const id = await execute(key, workflow.id);
    await reaches(id, "waiting");
    expect((await call(`/v1/executions/${id}/events`, { token: key, json: { event: "go" } })).status).toBe(202);
    const run = await settled(key, id);
    expect(run.status).toBe("succeeded");
    expect(run.errors_handled).toBe(1);
    expect(run.steps.map((s: any) => [s.step_id, s.status, s.attempts])).toEqual([
      ["total", "failed", 1],
      ["fallback", "succeeded", 1],
      ["gate", "succeeded", 1],
      ["after", "succeeded", 1],
    ]);
    const message = run.steps[0].error_message;
    expect(message).toBeTruthy();
    expect(run.steps[1].result.text).toBe(`fallback for: ${message}`);
    // Read again by the drive that resumed the run: the failure is replayed from its record.
    expect(run.steps[3].result.text).toBe(`fallback for: ${message} (failed)`);
  });

  it("a failing handler step fails the run, on_failure starts; a retry keeps the handled failure and counts it", async () => {
    const { key, errorWorkflow, settings } = await userWithErrorWorkflow();
    const workflow = await newWorkflow(key, {
      settings,
      steps: [failingTool("total", { on_error: { steps: [failingTool("fix")] } }), template("after", "not reached")],
    });
    const run = await settled(key, await execute(key, workflow.id));
    expect(run.status).toBe("failed");
    expect(run.failed_step_id).toBe("fix");
    expect(run.errors_handled).toBe(1);
    expect(run.steps.map((s: any) => [s.step_id, s.status])).toEqual([
      ["total", "failed"],
      ["fix", "failed"],
    ]);
    const errorRun = await env.DB.prepare("SELECT id FROM executions WHERE workflow_id = ? AND parent_execution_id = ?").bind(errorWorkflow.id, run.id).first();
    expect(errorRun).not.toBeNull();

    const retry = await json(await call(`/v1/executions/${run.id}/retry`, { token: key, method: "POST" }));
    const retried = await settled(key, retry.execution_id);
    expect(retried.failed_step_id).toBe("fix");
    expect(retried.errors_handled).toBe(1);
    // The handled step came over from the run it retries; only the handler's failed step ran again.
    expect(await toolCalls(workflow.id, "math_evaluate")).toBe(3);
  });

  it("refuses a bad on_error, a duplicate id among handler steps, a handler inside a handler, a loop's handler step that parks", async () => {
    const { key } = await newApiKey(await newUser());
    const cases: [unknown[], string][] = [
      [[failingTool("a", { on_error: "retry" })], "steps.0.on_error"],
      [[template("a", "x"), failingTool("b", { on_error: { steps: [template("a", "y")] } })], "steps.1.on_error.steps.0.id"],
      [[failingTool("a", { on_error: { steps: [failingTool("b", { on_error: { steps: [template("c", "z")] } })] } })], "steps.0.on_error.steps.0.on_error"],
      [
        [{ id: "loop", type: "for_each", items: [1], steps: [failingTool("a", { on_error: { steps: [{ id: "d", type: "delay", seconds: 1 }] } })] }],
        "steps.0.steps.0.on_error.steps.0.type",
      ],
    ];
    for (const [steps, field] of cases) {
      const problem = await expectProblem(
        await call("/v1/workflows", { token: key, json: { workflow_name: "x", description: "", steps } }),
        422,
        "validation_failed",
      );
      expect(problem.errors!.map((e: any) => e.field)).toContain(field);
    }
  });
});
