import { z } from "@hono/zod-openapi";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { JsonObject } from "../http/schemas";
import { WorkflowId, WorkflowSchema } from "../workflows/schemas";
import { BundleSchema, MAX_BUNDLE_CHARS, MAX_BUNDLE_WORKFLOWS } from "./bundle";
import { exportWorkflow } from "./export";
import { importWorkflows } from "./import";
import { MAX_N8N_WORKFLOWS } from "./n8n/import-n8n";

const exportRoute = authedRoute("data:read", {
  method: "get",
  path: "/workflows/{workflow_id}/export",
  tags: ["Workflows"],
  summary: "Export a workflow as a bundle",
  description: `The workflow with every workflow its \`workflow\` steps and error workflow reach (at most ${MAX_BUNDLE_WORKFLOWS} in all), by bundle reference; connections by platform and name; no ids, secrets, owners or times. Literal credentials in steps become \`{{variables}}\` with an empty default.`,
  request: { params: WorkflowId },
  responses: { 200: { description: "The bundle", content: { "application/json": { schema: BundleSchema } } }, ...notFoundError },
});

// The answer is the root workflow itself (DESIGN §6.6: "201 a workflow"), with the whole import
// beside it: the root again as `workflow`, the other workflows and the warnings.
const ImportedSchema = WorkflowSchema.extend({
  workflow: WorkflowSchema,
  children: z.array(WorkflowSchema.extend({ ref: z.string() })).openapi({ description: "The bundle's other workflows, each with its bundle reference." }),
  warnings: z.array(z.object({ node: z.string().optional(), reason: z.string() })).openapi({ description: "What could not be carried over as it was." }),
}).openapi("ImportedWorkflows");

const importRoute = authedRoute("data:write", {
  method: "post",
  path: "/workflows/import",
  tags: ["Workflows"],
  summary: "Import a workflow bundle",
  description: `Creates the bundle's workflows (children first in effect: \`workflow\` steps point at the new ids). Each connection the bundle needs is the one \`connections\` maps its platform to (a connection of the acting workspace), else the workspace's connection of the same platform and name; one that cannot be found is a 422 naming \`connections.<platform>\`. All or nothing, within the workflow quota; a bundle over ${MAX_BUNDLE_CHARS / 1024} KiB of JSON is a 413. Send exactly one of \`bundle\` and \`n8n\`.`,
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            bundle: BundleSchema.optional(),
            n8n: z
              .union([JsonObject, z.array(JsonObject).min(1).max(MAX_N8N_WORKFLOWS)])
              .optional()
              .openapi({
                description: `An n8n workflow export (its JSON), or a list of up to ${MAX_N8N_WORKFLOWS} imported together (an Execute Workflow node then calls the imported workflow). Nodes the hub cannot take over are listed in \`warnings\`; when none maps, 422 naming \`n8n.nodes\`.`,
              }),
            connections: z
              .record(z.string().min(1).max(100), z.number().int().positive())
              .refine((map) => Object.keys(map).length <= 100, "At most 100 platforms.")
              .optional()
              .openapi({ description: "`{<platform>: connection_id}`: which connection of the workspace each platform's steps use." }),
          }),
        },
      },
    },
  },
  responses: { 201: { description: "Created", content: { "application/json": { schema: ImportedSchema } } } },
});

export const portabilityRoutes = createRouter()
  .openapi(exportRoute, async (c) => c.json(await exportWorkflow(c.var.ctx, c.req.valid("param").workflow_id), 200))
  .openapi(importRoute, async (c) => {
    const imported = await importWorkflows(c.var.ctx, c.req.valid("json"));
    return c.json({ ...imported.workflow, ...imported }, 201);
  });
