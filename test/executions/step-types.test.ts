import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateSteps } from "../../src/workflows/steps";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { FAKE, connectModel, modelRequests, newScenario, openai, script } from "../conversations/helpers";
import { execute, killRunnerAndSweep, newWorkflow, reaches, settled, stepRunning } from "../helpers/runs";

/** A tool step that calls the fake server once; counting its requests counts the step's runs. */
const hit = (id: string, scenario: string, thing: string) => ({
  id,
  type: "tool",
  tool: "http_request",
  arguments: { url: `${FAKE()}/s/${scenario}/things/${thing}` },
});
const hitsOf = async (scenario: string) => {
  const requests: { path: string }[] = await (await fetch(`${FAKE()}/__requests/${scenario}`)).json();
  const counts: Record<string, number> = {};
  for (const r of requests) counts[r.path] = (counts[r.path] ?? 0) + 1;
  return counts;
};

describe("for_each steps", () => {
  it("runs its steps once per item with {{item}} and {{index}}, at most `concurrency` at a time, and answers per item", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("loop");
    const workflow = await newWorkflow(key, {
      steps: [
        {
          id: "leads",
          type: "for_each",
          items: "{{input.leads}}",
          as: "lead",
          concurrency: 3,
          steps: [
            { id: "greeting", type: "set", values: { line: "Hi {{lead.name}}" } },
            hit("fetch", scenario, "{{lead.id}}"),
            { id: "note", type: "tool", tool: "text_template", arguments: { template: "{{line}} (#{{index}})" } },
          ],
        },
        { id: "last", type: "set", values: { last: "{{steps.leads.result.4.note.text}}", outside: '{{line | default: "unset"}}' } },
      ],
    });
    const leads = ["ada", "grace", "linus", "barbara", "ken"].map((name, i) => ({ id: `L${i}`, name }));
    const execution = await settled(key, await execute(key, workflow.id, { leads }));
    expect(execution.status).toBe("succeeded");
    const loop = execution.steps.find((s: any) => s.step_id === "leads");
    expect(loop.result.map((r: any) => r.note.text)).toEqual(["Hi ada (#0)", "Hi grace (#1)", "Hi linus (#2)", "Hi barbara (#3)", "Hi ken (#4)"]);
    expect(loop.result[0].greeting).toEqual({ line: "Hi ada" });
    // The loop's result is there for the steps after it; a variable set inside an item stays in that item.
    expect(execution.steps.find((s: any) => s.step_id === "last").result).toEqual({ last: "Hi ken (#4)", outside: "unset" });
    // One record per item and step, each naming its item.
    const notes = execution.steps.filter((s: any) => s.step_id === "note");
    expect(notes.map((s: any) => s.item).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(Object.values(await hitsOf(scenario))).toEqual([1, 1, 1, 1, 1]);
    expect(loop.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("never runs more items at once than its concurrency", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [
        {
          id: "each",
          type: "for_each",
          items: [1, 2, 3, 4, 5, 6],
          concurrency: 2,
          steps: [{ id: "slow", type: "tool", tool: "wait", arguments: { seconds: 0.3 } }],
        },
      ],
    });
    const execution = await settled(key, await execute(key, workflow.id));
    expect(execution.status).toBe("succeeded");
    const spans: { start: number; end: number }[] = execution.steps
      .filter((s: any) => s.step_id === "slow")
      .map((s: any) => ({ start: Date.parse(s.started_at), end: Date.parse(s.finished_at) }));
    expect(spans).toHaveLength(6);
    // The most items running at any one moment: two, never more (and never one at a time).
    const overlap = Math.max(...spans.map(({ start }) => spans.filter((other) => other.start <= start && start < other.end).length));
    expect(overlap).toBe(2);
  });

  it("lets the items in progress finish before an item's retry pauses the run or its failure ends it", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("loopstop");
    const workflow = await newWorkflow(key, {
      steps: [
        {
          id: "each",
          type: "for_each",
          items: [
            { slow: 1, expression: "1 + 1" },
            { slow: 0, expression: "1 +" },
            { slow: 0, expression: "2 + 2" },
          ],
          concurrency: 2,
          steps: [
            hit("visit", scenario, "{{index}}"),
            { id: "pause", type: "tool", tool: "wait", arguments: { seconds: "{{item.slow}}" } },
            {
              id: "total",
              type: "tool",
              tool: "math_evaluate",
              arguments: { expression: "{{item.expression}}" },
              retry: { max_attempts: 2, delay_seconds: 1 },
            },
          ],
        },
      ],
    });
    const execution = await settled(key, await execute(key, workflow.id), 30_000);
    expect(execution).toMatchObject({ status: "failed", failed_step_id: "total" });
    expect(execution.error_message).toContain('Step "total#1" failed after 2 attempt(s)');
    // Item 0 was mid-wait when item 1 first failed: it finished, and nothing of it ran twice.
    const hits = await hitsOf(scenario);
    expect(Object.values(hits).every((n) => n === 1)).toBe(true);
    expect(hits["/things/0"]).toBe(1);
    const record = (id: string, item: number) => execution.steps.find((s: any) => s.step_id === id && s.item === item);
    expect(record("pause", 0)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(record("total", 0)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(record("total", 1)).toMatchObject({ status: "failed", attempts: 2 });
  }, 40_000);

  it("fails with the reason when items is not an array, and refuses steps that cannot run in a loop", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [{ id: "each", type: "for_each", items: "{{input.leads}}", steps: [{ id: "s", type: "set", values: { x: "{{item}}" } }] }],
    });
    const execution = await settled(key, await execute(key, workflow.id, { leads: "not a list" }));
    expect(execution).toMatchObject({ status: "failed", failed_step_id: "each" });
    expect(execution.error_message).toContain('"items" must be an array; it is string.');

    const refused = await call("/v1/workflows", {
      token: key,
      json: {
        workflow_name: "Bad loop",
        description: "",
        steps: [
          {
            id: "each",
            type: "for_each",
            items: [1, 2],
            as: "steps",
            steps: [
              { id: "pause", type: "delay", seconds: 5 },
              { id: "approve", type: "wait_for_event", event: "ok", timeout_seconds: 60 },
            ],
          },
        ],
      },
    });
    const problem = await expectProblem(refused, 422, "validation_failed");
    expect(problem.errors!.map((e: any) => e.field).sort()).toEqual(["steps.0.as", "steps.0.steps.0.type", "steps.0.steps.1.type"]);
  });

  it("survives a crash in the middle of the loop: finished items are not run again", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("loopcrash");
    const workflow = await newWorkflow(key, {
      steps: [
        {
          id: "each",
          type: "for_each",
          items: ["a", "b", "c", "d"],
          as: "thing",
          steps: [hit("fetch", scenario, "{{thing}}"), { id: "slow", type: "tool", tool: "wait", arguments: { seconds: 1 } }],
        },
      ],
    });
    const id = await execute(key, workflow.id);
    // The runner dies inside item 2's slow step (items 0 and 1 are done); the sweep hands the run on.
    await stepRunning(id, "slow#2");
    await killRunnerAndSweep(id);

    const execution = await settled(key, id, 30_000);
    expect(execution.status).toBe("succeeded");
    expect(await hitsOf(scenario)).toEqual({ "/things/a": 1, "/things/b": 1, "/things/c": 1, "/things/d": 1 });
    expect(execution.steps.find((s: any) => s.step_id === "each").result).toHaveLength(4);
    // The interrupted item's slow step ran again, as its second attempt.
    expect(execution.steps.find((s: any) => s.step_id === "slow" && s.item === 2)).toMatchObject({ status: "succeeded", attempts: 2 });
  }, 40_000);
});

describe("llm steps", () => {
  it("asks the model, answers {text} or checked {json}, and records tokens on the step and the run", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("llmstep");
    await connectModel(key, scenario);
    await script(scenario, [
      openai.text("Spring is here: 20% off for VIPs.", { prompt_tokens: 40, completion_tokens: 12 }),
      // Not JSON: the attempt fails and the step's retry asks again.
      openai.text("Sure! Here it is.", { prompt_tokens: 50, completion_tokens: 5 }),
      openai.text('```json\n{"subject": "Spring sale", "urgency": 3}\n```', { prompt_tokens: 50, completion_tokens: 15 }),
    ]);
    const workflow = await newWorkflow(key, {
      steps: [
        { id: "draft", type: "llm", provider: "openai", system: "You write short copy.", prompt: "Write a line for {{input.segment}}." },
        {
          id: "meta",
          type: "llm",
          provider: "openai",
          prompt: "Subject for: {{steps.draft.result.text}}",
          output: "json",
          schema: { type: "object", required: ["subject"], properties: { subject: { type: "string" }, urgency: { type: "integer" } } },
          retry: { max_attempts: 2, delay_seconds: 0 },
        },
      ],
    });
    const execution = await settled(key, await execute(key, workflow.id, { segment: "VIPs" }));
    expect(execution.status).toBe("succeeded");
    const [draft, meta] = execution.steps;
    expect(draft).toMatchObject({ status: "succeeded", result: { text: "Spring is here: 20% off for VIPs." }, tokens_used: 52 });
    expect(meta).toMatchObject({ status: "succeeded", attempts: 2, result: { json: { subject: "Spring sale", urgency: 3 } }, tokens_used: 120 });
    expect(execution.tokens_used).toBe(172);

    const requests = await modelRequests(scenario);
    expect(requests[0].body.messages).toEqual([
      { role: "system", content: "You write short copy." },
      { role: "user", content: "Write a line for VIPs." },
    ]);
    expect(requests[1].body.messages[0].content).toContain('"required":["subject"]');
    expect(requests[1].body.messages[1].content).toBe("Subject for: Spring is here: 20% off for VIPs.");
    expect(requests).toHaveLength(3);
  });

  it("in an agent's run, the agent's instructions come first and its provider and model fill in what the step leaves out", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = newScenario("llm-agent");
    await connectModel(key, scenario);
    await script(scenario, [openai.text("Hello VIPs."), openai.text("Plain hello.")]);
    const workflow = await newWorkflow(key, { steps: [{ id: "draft", type: "llm", system: "You write short copy.", prompt: "Greet {{input.segment}}." }] });
    const agent = await json(
      await call("/v1/agents/deploy", {
        token: key,
        json: { workflow_id: workflow.id, agent_config: { instructions: "Always answer in English.", provider: "openai", model: "fake-gpt-mini" } },
      }),
    );
    const byAgent = await json(await call(`/v1/agents/${agent.agent_id}/execute`, { token: key, json: { segment: "VIPs" }, headers: { Prefer: "wait=20" } }));
    expect(byAgent.steps[0].result).toEqual({ text: "Hello VIPs." });
    // The same workflow run directly is not the agent's: no instructions, and the default provider (none: local) fails it.
    const direct = await settled(key, await execute(key, workflow.id, { segment: "VIPs" }));
    expect(direct.status).toBe("failed");
    const requests = await modelRequests(scenario);
    expect(requests).toHaveLength(1);
    expect(requests[0].body.model).toBe("fake-gpt-mini");
    expect(requests[0].body.messages[0]).toEqual({ role: "system", content: "Always answer in English.\n\nYou write short copy." });
  });

  it("fails at once, with what to do, when no model provider is there", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      steps: [{ id: "draft", type: "llm", prompt: "Write a line.", retry: { max_attempts: 3, delay_seconds: 0 } }],
    });
    const execution = await settled(key, await execute(key, workflow.id));
    expect(execution).toMatchObject({ status: "failed", failed_step_id: "draft" });
    expect(execution.error_message).toContain("needs a language model");
    expect(execution.steps[0].attempts).toBe(1);
  });
});

describe("workflow steps (child runs)", () => {
  it("runs another workflow as a child execution and takes its result", async () => {
    const { key } = await newApiKey(await newUser());
    const child = await newWorkflow(key, {
      steps: [
        { id: "n", type: "set", values: { n: "{{input.n}}" } },
        { id: "double", type: "tool", tool: "math_evaluate", arguments: { expression: "n * 2", variables: { n: "{{n}}" } } },
      ],
    });
    const parent = await newWorkflow(key, {
      steps: [
        { id: "child", type: "workflow", workflow_id: child.id, input: { n: "{{input.n}}" } },
        { id: "say", type: "tool", tool: "text_template", arguments: { template: "Child said {{steps.child.result.steps.double.result}}" } },
      ],
    });
    const execution = await settled(key, await execute(key, parent.id, { n: 21 }));
    expect(execution.status).toBe("succeeded");
    expect(execution.steps[1].result.text).toBe("Child said 42");
    const childId = execution.steps[0].result.execution_id;
    const detail = await json(await call(`/v1/executions/${execution.id}`, { token: key }));
    expect(detail.child_executions).toEqual([expect.objectContaining({ id: childId, workflow_id: child.id, status: "succeeded" })]);
    const childRun = await json(await call(`/v1/executions/${childId}`, { token: key }));
    expect(childRun).toMatchObject({ status: "succeeded", workflow_id: child.id, parent_execution_id: execution.id, input_data: { n: 21 } });
  });

  it("parks the parent while its child waits, and the child's end wakes it", async () => {
    const { key } = await newApiKey(await newUser());
    const child = await newWorkflow(key, { steps: [{ id: "approve", type: "wait_for_event", event: "ok", timeout_seconds: 3600 }] });
    const parent = await newWorkflow(key, {
      steps: [
        { id: "child", type: "workflow", workflow_id: child.id },
        { id: "after", type: "set", values: { by: "{{steps.child.result.steps.approve.by}}" } },
      ],
    });
    const id = await execute(key, parent.id);
    await reaches(id, "waiting");
    const parked = await json(await call(`/v1/executions/${id}`, { token: key }));
    const childId = parked.steps[0].result.execution_id;
    await reaches(childId, "waiting");
    // The parent waits for its child, not for an event.
    await expectProblem(await call(`/v1/executions/${id}/events`, { token: key, json: { event: "ok" } }), 409, "conflict");
    expect((await call(`/v1/executions/${childId}/events`, { token: key, json: { event: "ok", payload: { by: "Ada" } } })).status).toBe(202);
    const done = await settled(key, id);
    expect(done.status).toBe("succeeded");
    expect(done.steps[1].result).toEqual({ by: "Ada" });
  });

  it("cancelling a parent cancels its child; cancelling a child fails the parent's step at once", async () => {
    const { key } = await newApiKey(await newUser());
    const child = await newWorkflow(key, { steps: [{ id: "approve", type: "wait_for_event", event: "ok", timeout_seconds: 3600 }] });
    const parent = await newWorkflow(key, { steps: [{ id: "child", type: "workflow", workflow_id: child.id }] });

    const first = await execute(key, parent.id);
    await reaches(first, "waiting");
    const firstChild = (await json(await call(`/v1/executions/${first}`, { token: key }))).steps[0].result.execution_id;
    await call(`/v1/executions/${first}/cancel`, { method: "POST", token: key });
    const orphan = await json(await call(`/v1/executions/${firstChild}`, { token: key }));
    expect(orphan).toMatchObject({ status: "cancelled", error_message: "Cancelled with the run that started it." });

    const second = await execute(key, parent.id);
    await reaches(second, "waiting");
    const secondChild = (await json(await call(`/v1/executions/${second}`, { token: key }))).steps[0].result.execution_id;
    await call(`/v1/executions/${secondChild}/cancel`, { method: "POST", token: key });
    const woken = await settled(key, second);
    expect(woken).toMatchObject({ status: "failed", failed_step_id: "child" });
    expect(woken.error_message).toContain(`The child run ${secondChild} cancelled`);
  });

  it("fails the step for a workflow that is no longer the user's, and stops recursion at depth 5", async () => {
    const owner = await newApiKey(await newUser());
    const stranger = await newApiKey(await newUser());
    const theirs = await newWorkflow(stranger.key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    // Naming someone else's workflow is refused when saved (run-limits.test.ts); one deleted since fails the step.
    await expectProblem(
      await call("/v1/workflows", {
        token: owner.key,
        json: { workflow_name: "borrow", description: "", steps: [{ id: "borrow", type: "workflow", workflow_id: theirs.id }] },
      }),
      422,
      "validation_failed",
    );
    const gone = await newWorkflow(owner.key, { steps: [{ id: "a", type: "set", values: { x: 1 } }] });
    const borrowing = await newWorkflow(owner.key, { steps: [{ id: "borrow", type: "workflow", workflow_id: gone.id }] });
    expect((await call(`/v1/workflows/${gone.id}`, { method: "DELETE", token: owner.key })).status).toBe(204);
    const refused = await settled(owner.key, await execute(owner.key, borrowing.id));
    expect(refused).toMatchObject({ status: "failed", failed_step_id: "borrow" });
    expect(refused.error_message).toContain("Workflow not found");

    const looping = await newWorkflow(owner.key, { steps: [{ id: "again", type: "set", values: { x: 1 } }] });
    await call(`/v1/workflows/${looping.id}`, {
      method: "PUT",
      token: owner.key,
      json: { steps: [{ id: "again", type: "workflow", workflow_id: looping.id }] },
    });
    const deep = await settled(owner.key, await execute(owner.key, looping.id), 30_000);
    expect(deep.status).toBe("failed");
    const runs = await env.DB.prepare("SELECT depth FROM executions WHERE workflow_id = ? ORDER BY depth").bind(looping.id).all<{ depth: number }>();
    expect(runs.results.map((r) => r.depth)).toEqual([0, 1, 2, 3, 4, 5]);
  }, 40_000);
});

describe("new step types validation (properties)", () => {
  const id = fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/);
  it("accepts well-formed llm, for_each and workflow steps and fills their defaults", () => {
    fc.assert(
      fc.property(
        id,
        fc.string({ minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 1e6 }),
        (stepId, prompt, concurrency, workflowId) => {
          const { steps, errors } = validateSteps([
            { id: `${stepId}_llm`, type: "llm", prompt },
            { id: `${stepId}_each`, type: "for_each", items: "{{input.xs}}", concurrency, steps: [{ id: `${stepId}_in`, type: "llm", prompt }] },
            { id: `${stepId}_child`, type: "workflow", workflow_id: workflowId },
          ]);
          expect(errors).toEqual([]);
          expect(steps).toMatchObject([{ output: "text" }, { as: "item", concurrency }, { input: {} }]);
        },
      ),
    );
  });

  it("names the field of malformed ones", () => {
    const cases = fc.constantFrom(
      [{ id: "a", type: "llm", prompt: "" }, "steps.0.prompt"],
      [{ id: "a", type: "llm", prompt: "x", output: "xml" }, "steps.0.output"],
      [{ id: "a", type: "llm", prompt: "x", schema: { type: "object" } }, "steps.0.schema"],
      [{ id: "a", type: "for_each", items: "{{xs}}", steps: [] }, "steps.0.steps"],
      [{ id: "a", type: "for_each", items: "{{xs}}", concurrency: 21, steps: [{ id: "b", type: "set", values: {} }] }, "steps.0.concurrency"],
      [{ id: "a", type: "for_each", items: "{{xs}}", steps: [{ id: "b", type: "workflow", workflow_id: 1 }] }, "steps.0.steps.0.type"],
      [{ id: "a", type: "workflow", workflow_id: -1 }, "steps.0.workflow_id"],
      [{ id: "a", type: "for_each", items: "{{xs}}", steps: [{ id: "a", type: "set", values: {} }] }, "steps.0.steps.0.id"],
    );
    fc.assert(
      fc.property(cases, ([step, field]) => {
        const { errors } = validateSteps([step]);
        expect(errors.map((e) => e.field)).toContain(field);
      }),
    );
  });
});
