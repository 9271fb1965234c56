import { z } from "@hono/zod-openapi";
import { JsonObject } from "../http/schemas";
import { MAX_STEPS } from "../workflows/steps";
import { Description, Name, Status } from "../workflows/schemas";

/** The one bundle format this hub writes and reads (DESIGN §6.6). */
export const BUNDLE_FORMAT = "hub.workflow/1";
/** A bundle holds its workflow and at most this many in all (children included). */
export const MAX_BUNDLE_WORKFLOWS = 50;
/** The characters of a bundle's JSON an import takes; larger ones are refused with 413. */
export const MAX_BUNDLE_CHARS = 512 * 1024;
/** The bundle-local name of the exported workflow; its children are `child-1`, `child-2`, … */
export const ROOT_REF = "root";

const Ref = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "Use letters, digits, _ . or - (64 at most).")
  .openapi({ description: "The workflow's name inside the bundle: `workflow` steps and `settings.on_failure` point at it as `{ref}`." });

/** A connection as a bundle names it: by platform and name, never by id. */
export const ConnectionRefSchema = z
  .object({ platform: z.string().min(1).max(100), name: z.string().min(1).max(200) })
  .strict()
  .openapi("ConnectionReference");
export type ConnectionRef = z.infer<typeof ConnectionRefSchema>;

export const BundleWorkflowSchema = z
  .object({
    ref: Ref,
    name: Name,
    description: Description.default(""),
    status: Status.optional(),
    trigger_type: z.string().max(20).default("manual"),
    trigger_config: JsonObject.default({}),
    variables: JsonObject.default({}),
    workflow_metadata: JsonObject.default({}),
    settings: JsonObject.default({}),
    steps: z.array(z.unknown()).max(MAX_STEPS),
  })
  .strict()
  .openapi("BundleWorkflow");
export type BundleWorkflow = z.infer<typeof BundleWorkflowSchema>;

export const BundleSchema = z
  .object({
    format: z.literal(BUNDLE_FORMAT).openapi({ description: `Always "${BUNDLE_FORMAT}".` }),
    workflow: BundleWorkflowSchema,
    children: z
      .array(BundleWorkflowSchema)
      .max(MAX_BUNDLE_WORKFLOWS - 1)
      .default([])
      .openapi({ description: "Every workflow the workflow's `workflow` steps and error workflows reach, each once." }),
    connections_required: z.array(ConnectionRefSchema).max(200).default([]).openapi({ description: "The connections the steps name, by platform and name." }),
  })
  .strict()
  .openapi("WorkflowBundle", {
    description:
      'A workflow with the workflows it runs, without ids, secrets, owners or times. A `workflow` step names its child as `"workflow": {"ref": "child-1"}`, a tool step its connection as `"connection": {platform, name}` (an MCP tool\'s name is `mcp_*_<tool>`). See docs/import-export.md.',
  });
export type Bundle = z.infer<typeof BundleSchema>;
