import { z } from "@hono/zod-openapi";
import { HubError } from "../core/errors";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { evaluateCondition } from "../lib/conditions";
import { PlaceholderInvalid, SubstitutionTooLarge, substitute } from "../lib/template";
import { presentWorkflow } from "./service";
import { ConditionSchema } from "./steps";
import { createWorkflowFromDescription } from "./builder";
import { createWorkflowFromConversation } from "./extractor";
import { Description, Name, TriggerType, TriggerConfig, WorkflowSchema } from "./schemas";
import { JsonObject } from "../http/schemas";

const testCondition = authedRoute("data:read", {
  method: "post",
  path: "/workflows/test-condition",
  tags: ["Workflows"],
  summary: "Test condition evaluation",
  description: "Evaluates `{field, operator, value}` (or and/or/not composites) against `context`, exactly as a condition step would.",
  // The condition is recursive; the OpenAPI generator cannot walk that, so the document shows an
  // object and the handler validates it with the real schema.
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            condition: JsonObject.openapi({
              description: "{field, operator, value} or {and: [...]}, {or: [...]}, {not: {...}}.",
              example: { field: "input.score", operator: "greater_than", value: 50 },
            }),
            context: JsonObject,
          }),
        },
      },
    },
  },
  responses: {
    200: {
      description: "The result",
      content: {
        "application/json": { schema: z.object({ result: z.boolean(), evaluated_value: z.unknown(), expected_value: z.unknown(), operator: z.string() }) },
      },
    },
  },
});

const testSubstitution = authedRoute("data:read", {
  method: "post",
  path: "/workflows/test-substitution",
  tags: ["Workflows"],
  summary: "Test variable substitution",
  description:
    'Replaces `{{variable}}` placeholders in `parameters` from `context`, exactly as a step\'s arguments would be, filters included (`{{name | default: "there" | upper}}`; `json`, `upper`, `lower`, `trim`, `urlencode`, `length`, `first`, `last`, `join: ", "`). Placeholders with no value and no default are left as written and listed in `missing`.',
  request: { body: { required: true, content: { "application/json": { schema: z.object({ parameters: JsonObject, context: JsonObject }) } } } },
  responses: {
    200: {
      description: "The substitution",
      content: {
        "application/json": {
          schema: z.object({
            original_parameters: JsonObject,
            substituted_parameters: JsonObject,
            substitutions_made: z.array(z.string()),
            missing: z.array(z.string()).openapi({
              description:
                "Placeholders with no value in `context` and no `| default:`; a workflow step would fail on them (unless its workflow has strict_placeholders: false).",
            }),
          }),
        },
      },
    },
  },
});

const build = authedRoute("data:write", {
  method: "post",
  path: "/workflows/build",
  tags: ["Workflows"],
  summary: "Build a workflow from a description",
  description:
    "A workflow-builder turns the description into steps. With the local provider, each sentence that names a tool becomes a tool step (arguments it cannot fill become `{{variables}}`); a model provider's JSON is validated against the step schema, sent back once for repair, and refused (422) if still invalid.",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({ description: z.string().trim().min(1).max(5000), name: Name.nullish(), provider: z.string().max(50).nullish() }),
        },
      },
    },
  },
  responses: { 201: { description: "Created", content: { "application/json": { schema: WorkflowSchema } } } },
});

const extract = authedRoute("data:write", {
  method: "post",
  path: "/workflows/extract",
  tags: ["Workflows"],
  summary: "Extract a workflow from a conversation",
  description:
    "The successful tool calls in the conversation's last 200 messages (all of them, or those in `selected_step_ids`, by tool_call_id) become tool steps in order; each of `parameterize_fields` (an argument name, or `<tool_call_id>.<argument>`) becomes a `{{variable}}` whose default is its value in the conversation. With `loop_repeated_calls`, consecutive calls of one tool that differ only in some arguments become one `for_each` step over those values (`{{item.<argument>}}`).",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            conversation_id: z.number().int().positive(),
            workflow_name: Name,
            description: Description.optional(),
            selected_step_ids: z.array(z.string().max(200)).max(100).optional(),
            parameterize_fields: z.array(z.string().max(300)).max(100).optional(),
            loop_repeated_calls: z.boolean().default(false),
            trigger_type: TriggerType.default("manual"),
            trigger_config: TriggerConfig.optional(),
          }),
        },
      },
    },
  },
  responses: { 201: { description: "Created", content: { "application/json": { schema: WorkflowSchema } } }, ...notFoundError },
});

export const builderRoutes = createRouter()
  .openapi(build, async (c) => c.json(presentWorkflow(await createWorkflowFromDescription(c.var.ctx, c.req.valid("json"))), 201))
  .openapi(extract, async (c) => {
    const body = c.req.valid("json");
    const row = await createWorkflowFromConversation(c.var.ctx, {
      conversationId: body.conversation_id,
      name: body.workflow_name,
      description: body.description,
      selectedStepIds: body.selected_step_ids,
      parameterizeFields: body.parameterize_fields,
      loopRepeatedCalls: body.loop_repeated_calls,
      triggerType: body.trigger_type,
      triggerConfig: body.trigger_config,
    });
    return c.json(presentWorkflow(row), 201);
  })
  .openapi(testCondition, (c) => {
    const { condition, context } = c.req.valid("json");
    const parsed = ConditionSchema.safeParse(condition);
    if (!parsed.success) {
      throw new HubError("validation_failed", "The condition is not valid.", {
        errors: parsed.error.issues.map((issue) => ({ location: "body", field: ["condition", ...issue.path.map(String)].join("."), message: issue.message })),
      });
    }
    return c.json(
      refuseTooLarge(() => evaluateCondition(parsed.data, context)),
      200,
    );
  })
  .openapi(testSubstitution, (c) => {
    const { parameters, context } = c.req.valid("json");
    const { value, substitutions, missing } = refuseTooLarge(() => substitute(parameters, context));
    return c.json(
      { original_parameters: parameters, substituted_parameters: value as Record<string, unknown>, substitutions_made: substitutions, missing },
      200,
    );
  });

/** A substitution that would grow past its cap is the caller's input problem: 422. */
function refuseTooLarge<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof SubstitutionTooLarge || error instanceof PlaceholderInvalid) throw new HubError("validation_failed", error.message);
    throw error;
  }
}
