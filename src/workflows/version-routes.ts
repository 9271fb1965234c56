import { z } from "@hono/zod-openapi";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { IntIdParam } from "../http/schemas";
import { presentWorkflow } from "./service";
import { WorkflowId, WorkflowSchema } from "./schemas";
import { listVersions, restoreVersion } from "./versions";

const VersionSchema = z
  .object({
    version: z.number().int(),
    current: z.boolean(),
    created_at: z.string(),
    steps: z.array(z.record(z.string(), z.unknown())),
  })
  .openapi("WorkflowVersion");

const list = authedRoute("data:read", {
  method: "get",
  path: "/workflows/{workflow_id}/versions",
  tags: ["Workflows"],
  summary: "List a workflow's versions",
  description:
    "Every version of the workflow's steps, newest first. The version goes up by one each time the steps change; an execution always runs the version it started with.",
  request: { params: WorkflowId },
  responses: { 200: { description: "Versions", content: { "application/json": { schema: z.object({ data: z.array(VersionSchema) }) } } }, ...notFoundError },
});

const restore = authedRoute("data:write", {
  method: "post",
  path: "/workflows/{workflow_id}/versions/{version}/restore",
  tags: ["Workflows"],
  summary: "Restore a version",
  description: "Makes that version's steps current again, as a new version (history is never rewritten). Answers the workflow.",
  request: { params: WorkflowId.extend(IntIdParam("version").shape) },
  responses: { 200: { description: "The workflow", content: { "application/json": { schema: WorkflowSchema } } }, ...notFoundError },
});

export const versionRoutes = createRouter()
  .openapi(list, async (c) => c.json({ data: await listVersions(c.var.ctx, c.req.valid("param").workflow_id) }, 200))
  .openapi(restore, async (c) => {
    const { workflow_id, version } = c.req.valid("param");
    return c.json(presentWorkflow(await restoreVersion(c.var.ctx, workflow_id, version)), 200);
  });
