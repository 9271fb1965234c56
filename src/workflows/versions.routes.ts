import { z } from "@hono/zod-openapi";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { PageQuery, pageOf } from "../http/pagination";
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
    "The versions of the workflow's steps kept (the newest MAX_WORKFLOW_VERSIONS, 50 by default), newest first, a page at a time. The version goes up by one each time the steps change; an execution always runs the version it started with.",
  request: { params: WorkflowId, query: PageQuery },
  responses: { 200: { description: "Versions", content: { "application/json": { schema: pageOf(VersionSchema) } } }, ...notFoundError },
});

const restore = authedRoute("data:write", {
  method: "post",
  path: "/workflows/{workflow_id}/versions/{version}/restore",
  tags: ["Workflows"],
  summary: "Restore a version",
  description:
    "Makes that version's steps current again, as a new version (history is never rewritten). Answers the workflow. A version no longer kept is 404, as an unknown one.",
  request: { params: WorkflowId.extend(IntIdParam("version").shape) },
  responses: { 200: { description: "The workflow", content: { "application/json": { schema: WorkflowSchema } } }, ...notFoundError },
});

export const versionRoutes = createRouter()
  .openapi(list, async (c) => c.json(await listVersions(c.var.ctx, c.req.valid("param").workflow_id, c.req.valid("query")), 200))
  .openapi(restore, async (c) => {
    const { workflow_id, version } = c.req.valid("param");
    return c.json(presentWorkflow(await restoreVersion(c.var.ctx, workflow_id, version)), 200);
  });
