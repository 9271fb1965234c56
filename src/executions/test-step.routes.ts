import { z } from "@hono/zod-openapi";
import { rateLimitHeaders } from "../http/rate-limit";
import { authedRoute, createRouter } from "../http/router";
import { JsonObject } from "../http/schemas";
import { CODE_LIMITS } from "../lib/sandbox/limits";
import { TRIAL_MS } from "./step-trial";
import { testStep } from "./test-step";

const StepTestSchema = z
  .object({
    status: z.enum(["succeeded", "failed", "waiting", "running"]).openapi({
      description:
        "`waiting`: a run would wait here (a delay, an event, a person's approval of an agent's call) until `resume_at`; `running`: a workflow step's test run had not ended in time (follow `execution_id`).",
    }),
    result: z.unknown().openapi({ description: "The step's result, as a run's step record would hold it (null when it failed)." }),
    error: z.string().nullable().openapi({ description: "Why the step failed (a code step's with its line number); null when it succeeded." }),
    logs: z.array(z.string()).openapi({ description: `A code step's console lines, the first ${CODE_LIMITS.maxLogLines}; empty for other steps.` }),
    logs_dropped: z.number().int().openapi({ description: "Console lines past the first ones, not kept." }),
    duration_ms: z.number().int(),
    resume_at: z.string().optional().openapi({ description: "When a waiting step would go on: a delay's end, an event's timeout." }),
    tokens_used: z.number().int().optional().openapi({ description: "Model tokens the step spent (llm, agent)." }),
    execution_id: z.string().optional().openapi({ description: 'A workflow step: the test run of its workflow (`mode: "test"`).' }),
  })
  .openapi("StepTestResult");

// It runs things and spends the owner's tool calls: the scope of running things, not of reading.
const testStepRoute = authedRoute("workflow:execute", {
  method: "post",
  path: "/workflows/test-step",
  tags: ["Workflows"],
  summary: "Run one step on its own",
  description: `Runs a step of any type as a workflow run would, once, without saving it or running any workflow, and answers what its step record would hold. A \`code\` step runs in the same sandbox with the same limits (its \`cpu_ms\` included) and \`input\` is the value the code gets as \`input\` (without it, the step's own \`input\` as written, or \`{input: {}, steps: {}, variables: {}}\`). Any other step gets \`input\` as the run's input (\`{{input.…}}\`), \`steps\` as the results of the steps before it (\`{"fetch": {...}}\` is read as \`{{steps.fetch.result…}}\`) and \`variables\` as the workflow's (together at most ${CODE_LIMITS.maxInputBytes / 1024 / 1024} MiB of JSON). A \`tool\` step calls the tool with your connections, charged and governed as any tool call (over the limit: 429); \`llm\` and \`agent\` steps ask the model; a \`condition\` answers the branch it takes without running it; a \`for_each\` runs its steps for each item; a \`delay\` or \`wait_for_event\` answers at once \`status: "waiting"\` with \`resume_at\`, when a run would go on (a delay of 0 succeeds); a \`workflow\` step starts a test run of its workflow (\`execution_id\`, mode \`test\`) and waits for it. One attempt is made: a failure a run would retry is the answer. A step that fails answers 200 with \`status: "failed"\` and the error; a test takes at most ${TRIAL_MS / 1000} s. Each test counts as one tool call against the per-minute tool-call limit (a tool step's call is that one).`,
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            step: JsonObject.openapi({
              description: "The step, as in a workflow's `steps`.",
              example: { id: "total", type: "code", code: "console.log(input.items.length);\nreturn input.items.reduce((sum, item) => sum + item.price, 0);" },
            }),
            input: z
              .unknown()
              .optional()
              .openapi({
                description: "A code step: what the code gets as `input`. Any other step: the run's input, an object.",
                example: { items: [{ price: 3 }, { price: 4 }] },
              }),
            steps: JsonObject.optional().openapi({ description: "The results of the steps before it, by step id (not for code steps)." }),
            variables: JsonObject.optional().openapi({ description: "The workflow's variables (not for code steps)." }),
          }),
        },
      },
    },
  },
  responses: { 200: { description: "What the step did", content: { "application/json": { schema: StepTestSchema } } } },
});

export const testStepRoutes = createRouter().openapi(testStepRoute, async (c) => {
  const body = c.req.valid("json");
  const { outcome, limits } = await testStep(c.var.ctx, body.step, { input: body.input, steps: body.steps, variables: body.variables });
  // Appended: the request limits are reported too.
  for (const [name, value] of Object.entries(rateLimitHeaders(limits))) c.header(name, value, { append: true });
  return c.json(outcome, 200);
});
