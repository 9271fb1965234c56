import { z } from "@hono/zod-openapi";
import { ApiError } from "../http/errors";
import { authedRoute, conflictError, createRouter, notFoundError } from "../http/router";
import { PageQuery, decodeCursor, pageById, pageOf, paginate } from "../http/pagination";
import { IntIdParam, Timestamp } from "../http/schemas";
import { evaluateCondition } from "../lib/conditions";
import { SubstitutionTooLarge, substitute } from "../lib/template";
import { cancelExecution, getOwnedExecution, listExecutions, presentExecution, startExecution } from "./executions";
import { createWorkflow, deleteWorkflow, getOwnedWorkflow, listWorkflows, presentWorkflow, updateWorkflow } from "./service";
import { ConditionSchema, SettingsSchema, StepsSchema } from "./steps";
import { buildFromDescription } from "./builder";
import { extractSteps } from "./extractor";
import { conversationStub, getOwnedConversation } from "../conversations/service";

const Status = z.enum(["draft", "active", "paused", "archived"]);
const JsonObject = z.record(z.string(), z.unknown());

export const WorkflowSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    status: Status,
    version: z.number().int(),
    is_template: z.boolean().openapi({ description: "Whether the workflow is published as a template now (POST /v1/workflows/{id}/publish)." }),
    trigger_type: z.string(),
    trigger_config: JsonObject,
    variables: JsonObject,
    workflow_metadata: JsonObject,
    settings: JsonObject,
    steps: z.array(JsonObject),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("Workflow");

const StepRecordSchema = z.object({
  step_id: z.string(),
  type: z.string(),
  status: z.enum(["running", "waiting", "retrying", "succeeded", "failed", "skipped"]),
  attempts: z.number().int(),
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  resume_at: Timestamp.nullable(),
  result: z.unknown(),
  error_message: z.string().nullable(),
});

const ExecutionSchema = z
  .object({
    id: z.string(),
    workflow_id: z.number().int(),
    workflow_version: z.number().int(),
    status: z.enum(["queued", "running", "succeeded", "failed", "cancelled"]),
    input_data: JsonObject,
    error_message: z.string().nullable(),
    failed_step_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    created_at: Timestamp,
    started_at: Timestamp.nullable(),
    finished_at: Timestamp.nullable(),
    steps: z.array(StepRecordSchema).optional(),
  })
  .openapi("Execution");

const WorkflowId = IntIdParam("workflow_id");
export const Name = z.string().trim().min(1).max(200);
const Description = z.string().max(5000);
const TriggerType = z.string().max(50);

const create = authedRoute("data:write", {
  method: "post",
  path: "/workflows",
  tags: ["Workflows"],
  summary: "Create a workflow from explicit steps",
  description: "Steps are validated (422 names each bad step and field; an unknown tool is an error).",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            workflow_name: Name,
            description: Description,
            steps: StepsSchema,
            trigger_type: TriggerType.default("manual"),
            trigger_config: JsonObject.optional(),
            variables: JsonObject.optional(),
            workflow_metadata: JsonObject.optional(),
            settings: SettingsSchema.optional(),
            status: Status.optional(),
          }),
        },
      },
    },
  },
  responses: { 201: { description: "Created", content: { "application/json": { schema: WorkflowSchema } } } },
});

const list = authedRoute("data:read", {
  method: "get",
  path: "/workflows",
  tags: ["Workflows"],
  summary: "List workflows",
  request: { query: PageQuery },
  responses: { 200: { description: "Workflows", content: { "application/json": { schema: pageOf(WorkflowSchema) } } } },
});

const get = authedRoute("data:read", {
  method: "get",
  path: "/workflows/{workflow_id}",
  tags: ["Workflows"],
  summary: "Get a workflow",
  request: { params: WorkflowId },
  responses: { 200: { description: "The workflow", content: { "application/json": { schema: WorkflowSchema } } }, ...notFoundError },
});

const update = authedRoute("data:write", {
  method: "put",
  path: "/workflows/{workflow_id}",
  tags: ["Workflows"],
  summary: "Update a workflow",
  description: "Every field is optional; `steps` is the complete ordered list. The version goes up by one when the steps change.",
  request: {
    params: WorkflowId,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            name: Name.optional(),
            description: Description.optional(),
            status: Status.optional(),
            trigger_type: TriggerType.optional(),
            trigger_config: JsonObject.optional(),
            variables: JsonObject.optional(),
            steps: StepsSchema.optional(),
            workflow_metadata: JsonObject.optional(),
            settings: SettingsSchema.optional(),
          }),
        },
      },
    },
  },
  responses: { 200: { description: "Updated", content: { "application/json": { schema: WorkflowSchema } } }, ...notFoundError },
});

const remove = authedRoute("data:write", {
  method: "delete",
  path: "/workflows/{workflow_id}",
  tags: ["Workflows"],
  summary: "Delete a workflow and its executions",
  request: { params: WorkflowId },
  responses: { 204: { description: "Deleted" }, ...notFoundError },
});

const execute = authedRoute("workflow:execute", {
  method: "post",
  path: "/workflows/{workflow_id}/execute",
  tags: ["Workflows"],
  summary: "Execute a workflow",
  description:
    "Queues a run and answers 202 with its `execution_id`; follow it at GET /v1/executions/{execution_id}. `input_data` overlays the workflow's variables and is available as `{{input.…}}`.",
  request: { params: WorkflowId, body: { required: false, content: { "application/json": { schema: z.object({ input_data: JsonObject.default({}) }) } } } },
  responses: {
    202: {
      description: "Queued",
      content: { "application/json": { schema: z.object({ execution_id: z.string(), status: z.literal("queued"), workflow_version: z.number().int() }) } },
    },
    ...notFoundError,
    409: { description: "The workflow is paused or archived." },
  },
});

const executionsOf = authedRoute("data:read", {
  method: "get",
  path: "/workflows/{workflow_id}/executions",
  tags: ["Workflows"],
  summary: "List a workflow's executions",
  request: { params: WorkflowId, query: PageQuery },
  responses: { 200: { description: "Executions, newest first", content: { "application/json": { schema: pageOf(ExecutionSchema) } } }, ...notFoundError },
});

const execution = authedRoute("data:read", {
  method: "get",
  path: "/executions/{execution_id}",
  tags: ["Workflows"],
  summary: "Get an execution with its step records",
  request: {
    params: z.object({
      execution_id: z
        .string()
        .max(64)
        .openapi({ param: { name: "execution_id", in: "path" } }),
    }),
  },
  responses: { 200: { description: "The execution", content: { "application/json": { schema: ExecutionSchema } } }, ...notFoundError },
});

const cancel = authedRoute("workflow:execute", {
  method: "post",
  path: "/executions/{execution_id}/cancel",
  tags: ["Workflows"],
  summary: "Cancel an execution",
  description:
    "Stops an unfinished execution (queued, running, or waiting on a delay or a retry): a step in progress is aborted and no further step runs. Answers the execution, now `cancelled`; a finished one answers 409.",
  request: {
    params: z.object({
      execution_id: z
        .string()
        .max(64)
        .openapi({ param: { name: "execution_id", in: "path" } }),
    }),
  },
  responses: { 200: { description: "Cancelled", content: { "application/json": { schema: ExecutionSchema } } }, ...notFoundError, ...conflictError },
});

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
  description: "Replaces `{{variable}}` placeholders in `parameters` from `context`, exactly as a step's arguments would be.",
  request: { body: { required: true, content: { "application/json": { schema: z.object({ parameters: JsonObject, context: JsonObject }) } } } },
  responses: {
    200: {
      description: "The substitution",
      content: {
        "application/json": {
          schema: z.object({ original_parameters: JsonObject, substituted_parameters: JsonObject, substitutions_made: z.array(z.string()) }),
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
    "The conversation's successful tool calls (or those in `selected_step_ids`, by tool_call_id) become tool steps in order; each of `parameterize_fields` (an argument name, or `<tool_call_id>.<argument>`) becomes a `{{variable}}` whose default is its value in the conversation.",
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
            trigger_type: TriggerType.default("manual"),
            trigger_config: JsonObject.optional(),
          }),
        },
      },
    },
  },
  responses: { 201: { description: "Created", content: { "application/json": { schema: WorkflowSchema } } }, ...notFoundError },
});

export const workflowRoutes = createRouter()
  .openapi(build, async (c) => {
    const body = c.req.valid("json");
    const userId = c.get("principal").userId;
    const built = await buildFromDescription({ env: c.env, config: c.get("config"), db: c.get("db"), userId }, body.description, {
      name: body.name,
      provider: body.provider,
    });
    const row = await createWorkflow(
      c.get("db"),
      userId,
      {
        name: built.name,
        description: body.description,
        steps: built.steps,
        variables: built.variables,
        metadata: { built_by: built.provider },
      },
      c.get("config").quotas.workflowsPerUser,
    );
    return c.json(presentWorkflow(row), 201);
  })
  .openapi(extract, async (c) => {
    const body = c.req.valid("json");
    const userId = c.get("principal").userId;
    await getOwnedConversation(c.get("db"), userId, body.conversation_id);
    const messages = await conversationStub(c.env, body.conversation_id).messages(body.conversation_id);
    const { steps, variables } = extractSteps(messages, { selectedStepIds: body.selected_step_ids, parameterizeFields: body.parameterize_fields });
    const row = await createWorkflow(
      c.get("db"),
      userId,
      {
        name: body.workflow_name,
        description: body.description ?? `Extracted from conversation ${body.conversation_id}.`,
        steps,
        variables,
        triggerType: body.trigger_type,
        triggerConfig: body.trigger_config,
        metadata: { extracted_from_conversation: body.conversation_id },
      },
      c.get("config").quotas.workflowsPerUser,
    );
    return c.json(presentWorkflow(row), 201);
  })
  .openapi(testCondition, (c) => {
    const { condition, context } = c.req.valid("json");
    const parsed = ConditionSchema.safeParse(condition);
    if (!parsed.success) {
      throw new ApiError("validation_failed", "The condition is not valid.", {
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
    const { value, substitutions } = refuseTooLarge(() => substitute(parameters, context));
    return c.json({ original_parameters: parameters, substituted_parameters: value as Record<string, unknown>, substitutions_made: substitutions }, 200);
  })
  .openapi(create, async (c) => {
    const body = c.req.valid("json");
    const row = await createWorkflow(
      c.get("db"),
      c.get("principal").userId,
      {
        name: body.workflow_name,
        description: body.description,
        steps: body.steps,
        status: body.status,
        triggerType: body.trigger_type,
        triggerConfig: body.trigger_config,
        variables: body.variables,
        metadata: body.workflow_metadata,
        settings: body.settings,
      },
      c.get("config").quotas.workflowsPerUser,
    );
    return c.json(presentWorkflow(row), 201);
  })
  .openapi(list, async (c) => {
    const page = await pageById(c.req.valid("query"), (n, before) => listWorkflows(c.get("db"), c.get("principal").userId, n, before), presentWorkflow);
    return c.json(page, 200);
  })
  .openapi(get, async (c) => c.json(presentWorkflow(await getOwnedWorkflow(c.get("db"), c.get("principal").userId, c.req.valid("param").workflow_id)), 200))
  .openapi(update, async (c) => {
    const body = c.req.valid("json");
    const row = await updateWorkflow(c.get("db"), c.get("principal").userId, c.req.valid("param").workflow_id, {
      name: body.name,
      description: body.description,
      status: body.status,
      triggerType: body.trigger_type,
      triggerConfig: body.trigger_config,
      variables: body.variables,
      steps: body.steps,
      metadata: body.workflow_metadata,
      settings: body.settings,
    });
    return c.json(presentWorkflow(row), 200);
  })
  .openapi(remove, async (c) => {
    await deleteWorkflow(c.get("db"), c.get("principal").userId, c.req.valid("param").workflow_id);
    return c.body(null, 204);
  })
  .openapi(execute, async (c) => {
    const principal = c.get("principal");
    const workflow = await getOwnedWorkflow(c.get("db"), principal.userId, c.req.valid("param").workflow_id);
    // The body is optional: without one the run gets empty input_data.
    const input = (c.req.valid("json") as { input_data?: Record<string, unknown> } | undefined)?.input_data ?? {};
    const run = await startExecution(c.env, c.get("db"), workflow, { userId: principal.userId, credentialId: principal.credentialId, input });
    return c.json({ execution_id: run.id, status: "queued" as const, workflow_version: run.workflowVersion }, 202);
  })
  .openapi(executionsOf, async (c) => {
    const workflow = await getOwnedWorkflow(c.get("db"), c.get("principal").userId, c.req.valid("param").workflow_id);
    const { limit, cursor } = c.req.valid("query");
    const after = decodeCursor(cursor, z.object({ c: z.number(), id: z.string() }));
    const rows = await listExecutions(c.get("db"), workflow.id, limit + 1, after);
    const { page, nextCursor } = paginate(rows, limit, (row) => ({ c: row.createdAt.getTime(), id: row.id }));
    return c.json({ data: await Promise.all(page.map((row) => presentExecution(c.get("db"), row, false))), next_cursor: nextCursor }, 200);
  })
  .openapi(cancel, async (c) => {
    const row = await cancelExecution(c.get("db"), c.get("principal").userId, c.req.valid("param").execution_id);
    return c.json(await presentExecution(c.get("db"), row, true), 200);
  })
  .openapi(execution, async (c) => {
    const row = await getOwnedExecution(c.get("db"), c.get("principal").userId, c.req.valid("param").execution_id);
    return c.json(await presentExecution(c.get("db"), row, true), 200);
  });

/** A substitution that would grow past its cap is the caller's input problem: 422. */
function refuseTooLarge<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof SubstitutionTooLarge) throw new ApiError("validation_failed", error.message);
    throw error;
  }
}
