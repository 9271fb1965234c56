import { z } from "@hono/zod-openapi";
import { rateLimitHeaders } from "../http/rate-limit";
import { authedRoute, createRouter } from "../http/router";
import { JsonObject } from "../http/schemas";
import { CODE_LIMITS } from "../lib/sandbox/limits";
import { testStep } from "./test-step";

const StepTestSchema = z
  .object({
    status: z.enum(["succeeded", "failed"]),
    result: z.unknown().openapi({ description: "Exactly what the code returned (null when it failed)." }),
    error: z.string().nullable().openapi({ description: "Why the code failed, with its line number when it threw; null when it succeeded." }),
    logs: z.array(z.string()).openapi({ description: `The code's console lines, the first ${CODE_LIMITS.maxLogLines}.` }),
    logs_dropped: z.number().int().openapi({ description: "Console lines past the first ones, not kept." }),
    duration_ms: z.number().int(),
  })
  .openapi("StepTestResult");

// It runs code and spends the owner's tool calls: the scope of running things, not of reading.
const testStepRoute = authedRoute("workflow:execute", {
  method: "post",
  path: "/workflows/test-step",
  tags: ["Workflows"],
  summary: "Run one step on its own",
  description: `Runs a step as a workflow run would, without saving or running any workflow. Only \`code\` steps for now (any other type is 400): the code runs in the same sandbox with the same limits (its \`cpu_ms\` included) and \`input\` is the value the code gets as \`input\` (at most ${CODE_LIMITS.maxInputBytes / 1024 / 1024} MiB of JSON; without it, the step's own \`input\` as written, or \`{input: {}, steps: {}, variables: {}}\`). A code that throws, runs out of its budget or returns something that is not JSON answers 200 with \`status: "failed"\` and the error (with the code's line number). Each test counts as one tool call against the per-minute tool-call limit.`,
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
              .openapi({ description: "What the code gets as `input`.", example: { items: [{ price: 3 }, { price: 4 }] } }),
          }),
        },
      },
    },
  },
  responses: { 200: { description: "What the step did", content: { "application/json": { schema: StepTestSchema } } } },
});

export const testStepRoutes = createRouter().openapi(testStepRoute, async (c) => {
  const body = c.req.valid("json");
  const { outcome, limits } = await testStep(c.var.ctx, body.step, body.input);
  // Appended: the request limits are reported too.
  for (const [name, value] of Object.entries(rateLimitHeaders(limits))) c.header(name, value, { append: true });
  return c.json(outcome, 200);
});
