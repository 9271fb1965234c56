import { z } from "@hono/zod-openapi";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { PageQuery, pageById, pageOf } from "../http/pagination";
import { createWorkflow, deleteWorkflow, getOwnedWorkflow, listWorkflows, presentWorkflow, updateWorkflow } from "./service";
import { SettingsSchema, StepsSchema } from "./steps";
import { JsonObject } from "../http/schemas";
import { Description, Name, Status, TriggerType, TriggerConfig, WorkflowId, WorkflowSchema } from "./schemas";

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
            trigger_config: TriggerConfig.optional(),
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
            trigger_config: TriggerConfig.optional(),
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

export const workflowRoutes = createRouter()
  .openapi(create, async (c) => {
    const body = c.req.valid("json");
    const row = await createWorkflow(c.var.ctx, {
      name: body.workflow_name,
      description: body.description,
      steps: body.steps,
      status: body.status,
      triggerType: body.trigger_type,
      triggerConfig: body.trigger_config,
      variables: body.variables,
      metadata: body.workflow_metadata,
      settings: body.settings,
    });
    return c.json(presentWorkflow(row), 201);
  })
  .openapi(list, async (c) => {
    const page = await pageById(c.req.valid("query"), (n, before) => listWorkflows(c.var.ctx, n, before), presentWorkflow);
    return c.json(page, 200);
  })
  .openapi(get, async (c) => c.json(presentWorkflow(await getOwnedWorkflow(c.var.ctx, c.req.valid("param").workflow_id)), 200))
  .openapi(update, async (c) => {
    const body = c.req.valid("json");
    const row = await updateWorkflow(c.var.ctx, c.req.valid("param").workflow_id, {
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
    await deleteWorkflow(c.var.ctx, c.req.valid("param").workflow_id);
    return c.body(null, 204);
  });
