import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../http/app-env";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { JsonObject, Timestamp } from "../http/schemas";
import { HubError } from "../core/errors";
import { AgentSchema } from "../agents/agents.routes";
import { presentOwnedAgent } from "../agents/service";
import { Name, WorkflowSchema } from "../workflows/schemas";
import { presentWorkflow } from "../workflows/service";
import {
  PUBLISHED_CONTENT_IN_LIST,
  PUBLISHED_IN_LIST,
  featuredTemplates,
  getTemplate,
  listTemplatesWithContent,
  presentTemplate,
  publishWorkflow,
  unpublish,
} from "./service";
import { useTemplate } from "./use-template";

const Difficulty = z.enum(["beginner", "intermediate", "advanced"]);

const TemplateSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    category: z.string(),
    difficulty: Difficulty,
    required_connections: z.array(z.string()).openapi({ description: "Platform ids the template's tools need." }),
    tags: z.array(z.string()),
    featured: z.boolean(),
    use_count: z.number().int(),
    trigger_type: z.string(),
    trigger_config: z.record(z.string(), z.unknown()),
    variables: z.record(z.string(), z.object({ default: z.unknown(), description: z.string() })),
    steps: z.array(z.unknown()),
    published_by_user: z.boolean(),
    source_workflow_id: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The workflow it was published from: shown to its publisher only, null for everyone else." }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("Template");

const envelope = <T extends z.ZodType>(data: T) => z.object({ success: z.boolean(), data, message: z.string() });
const ok = <T, S extends 200 | 201 = 200>(c: Context<AppEnv>, data: T, message: string, status?: S) =>
  c.json({ success: true, data, message }, (status ?? 200) as S);

const Filter = z.string().max(200).nullish();
/** What every marketplace list holds, so that one read stays bounded however many templates users publish. */
const WINDOW = `Every built-in template that matches, at most ${PUBLISHED_IN_LIST} published by users (the most used, newest first among equals) and your own published ones, their steps, variables and trigger config together at most ${PUBLISHED_CONTENT_IN_LIST.toLocaleString("en-US")} characters; \`GET /templates/{template_id}\` reads any one.`;
const listQuery = z.object({ category: Filter, difficulty: Filter, search: Filter, connection: Filter });
const list = (path: "/templates" | "/templates/") =>
  authedRoute("data:read", {
    method: "get",
    path,
    tags: ["Templates"],
    summary: "List workflow templates",
    description: `Filters (\`category\`, \`difficulty\`, \`search\` in name, description and tags, \`connection\` = a required platform id) combine. Featured first, then most used. ${WINDOW}`,
    request: { query: listQuery },
    responses: { 200: { description: "Templates", content: { "application/json": { schema: envelope(z.array(TemplateSchema)) } } } },
  });

const categories = authedRoute("data:read", {
  method: "get",
  path: "/templates/categories",
  tags: ["Templates"],
  summary: "Templates grouped by category",
  description: `The templates of the list, grouped. ${WINDOW}`,
  responses: {
    200: {
      description: "Categories",
      content: {
        "application/json": { schema: envelope(z.array(z.object({ category: z.string(), count: z.number().int(), templates: z.array(TemplateSchema) }))) },
      },
    },
  },
});

const featured = authedRoute("data:read", {
  method: "get",
  path: "/templates/featured/list",
  tags: ["Templates"],
  summary: "Most popular templates",
  description: `Featured templates first, then by use count; at most 10, chosen among the list's templates (built-in ones and at most ${PUBLISHED_IN_LIST} published).`,
  responses: { 200: { description: "Featured", content: { "application/json": { schema: envelope(z.array(TemplateSchema)) } } } },
});

const TemplateId = z.object({
  template_id: z
    .string()
    .max(100)
    .openapi({ param: { name: "template_id", in: "path" } }),
});

const get = authedRoute("data:read", {
  method: "get",
  path: "/templates/{template_id}",
  tags: ["Templates"],
  summary: "Get a template",
  request: { params: TemplateId },
  responses: { 200: { description: "The template", content: { "application/json": { schema: envelope(TemplateSchema) } } }, ...notFoundError },
});

const UseBody = z.object({
  name: Name.optional().openapi({ description: "The new workflow's name (default: the template's)." }),
  variables: JsonObject.optional().openapi({ description: "Values for the template's variables; the others keep their defaults." }),
  connections: z
    .record(z.string().max(64), z.number().int().positive())
    .optional()
    .openapi({ description: 'The connection each platform\'s steps use, by platform id, e.g. `{"slack": 12}`.', example: { hubspot: 3, slack: 4 } }),
  deploy: z.boolean().optional().openapi({ description: "Also deploy the new workflow as an agent, its trigger armed (needs `workflow:execute`)." }),
});

/** The use request's optional body (read through Hono, which keeps it for the middleware that read it first): empty, even labelled JSON, is a plain copy. */
async function useOptions(text: string): Promise<z.infer<typeof UseBody>> {
  if (!text.trim()) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new HubError("malformed_json", "The body is not valid JSON.");
  }
  const parsed = UseBody.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new HubError("validation_failed", "The request has invalid fields.", {
    errors: parsed.error.issues.map((issue) => ({ location: "body", field: issue.path.join("."), message: issue.message })),
  });
}

const use = authedRoute("data:write", {
  method: "post",
  path: "/templates/{template_id}/use",
  tags: ["Templates"],
  summary: "Use a template",
  description:
    "Optional JSON body: `{name?, variables?, connections?: {<platform>: connection_id}, deploy?: boolean}`; an empty body is a plain copy. Copies the template into a new workflow of yours (variables take their defaults unless `variables` names them); the template itself is unchanged but for its use count, which counts each user once and never the publisher. With `connections` or `deploy`, every platform the template's steps call must have a connection of yours (the one named, else your own of that platform) and its steps are bound to it (`arguments.connection_id`); a missing or wrong one is 422 naming `connections.<platform>`, before anything is created. With `deploy: true` the workflow is deployed as an agent in the same call, its trigger armed (a schedule trigger is scheduled), and `data.agent` holds the agent with its `webhook_secret`, shown this once. A stored template whose steps are cut short or no longer valid is refused with 409 `conflict` naming what is wrong.",
  // The body is read by the handler (useOptions): clients post this with an empty body, often still
  // labelled JSON, which the schema validator would refuse as malformed.
  request: { params: TemplateId },
  responses: {
    201: {
      description: "The new workflow (and the agent, when deployed)",
      content: { "application/json": { schema: envelope(WorkflowSchema.extend({ agent: AgentSchema.extend({ webhook_secret: z.string() }).optional() })) } },
    },
    409: { description: "The template is damaged (its steps are cut short or no longer valid), or you hold the most workflows allowed." },
    ...notFoundError,
  },
});

const publish = authedRoute(
  "data:write",
  {
    method: "post",
    path: "/workflows/{workflow_id}/publish",
    tags: ["Templates"],
    summary: "Publish a workflow as a template",
    description:
      "Other users see it in the marketplace. The copy keeps the automation, never your credentials: fields whose name says they hold a credential (password, api_key, token, authorization, …) and values that are credentials by their look (bearer tokens, provider keys, JWTs, Slack/Discord/Telegram webhook URLs) become `{{<step>_<field>}}` variables with an empty default, header values become `{{header_<name>}}` variables (Content-Type, Accept and values that are only placeholders stay), every web address loses `user:password@` and credential-named query and fragment parameters (`token`, `key`, `sig`, `code`, `*_key`, …), connection ids are dropped, secret variables keep their name with an empty default, and `trigger_config` keeps only type, cron_expression, timezone, interval_seconds, event and verify. Placeholders are kept as written. A workflow holding values stored truncated, or steps that are not valid (before or after that cleaning), is refused with 422. Each publication is a new template with a random id and counts against your quota of published templates.",
    request: {
      params: z.object({
        workflow_id: z.coerce
          .number()
          .int()
          .positive()
          .openapi({ param: { name: "workflow_id", in: "path" } }),
      }),
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z.object({
              category: z.string().trim().min(1).max(50),
              difficulty: Difficulty.default("beginner"),
              tags: z.array(z.string().max(50)).max(20).default([]),
            }),
          },
        },
      },
    },
    responses: {
      201: { description: "Published", content: { "application/json": { schema: envelope(TemplateSchema) } } },
      409: {
        description: "You have as many published templates as an account may have (MAX_PUBLISHED_TEMPLATES_PER_USER): `quota_exceeded`; unpublish one first.",
      },
      ...notFoundError,
    },
  },
  { role: "admin" },
);

const withdraw = authedRoute(
  "data:write",
  {
    method: "delete",
    path: "/templates/{template_id}",
    tags: ["Templates"],
    summary: "Unpublish a template you published",
    request: { params: TemplateId },
    responses: { 204: { description: "Unpublished" }, ...notFoundError },
  },
  { role: "admin" },
);

export const templateRoutes = createRouter()
  .openapi(categories, async (c) => {
    const all = await listTemplatesWithContent(c.var.ctx.db, {}, c.var.ctx.workspace.id);
    const groups = new Map<string, ReturnType<typeof presentTemplate>[]>();
    for (const t of all) groups.set(t.category, [...(groups.get(t.category) ?? []), presentTemplate(t, c.var.ctx.workspace.id)]);
    const data = [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([category, items]) => ({ category, count: items.length, templates: items }));
    return ok(c, data, `${data.length} categories.`);
  })
  .openapi(featured, async (c) => {
    const data = (await featuredTemplates(c.var.ctx.db)).map((t) => presentTemplate(t, c.var.ctx.workspace.id));
    return ok(c, data, `${data.length} featured templates.`);
  })
  .openapi(list("/templates"), async (c) => {
    const data = (await listTemplatesWithContent(c.var.ctx.db, c.req.valid("query"), c.var.ctx.workspace.id)).map((t) =>
      presentTemplate(t, c.var.ctx.workspace.id),
    );
    return ok(c, data, `${data.length} templates.`);
  })
  .openapi(list("/templates/"), async (c) => {
    const data = (await listTemplatesWithContent(c.var.ctx.db, c.req.valid("query"), c.var.ctx.workspace.id)).map((t) =>
      presentTemplate(t, c.var.ctx.workspace.id),
    );
    return ok(c, data, `${data.length} templates.`);
  })
  .openapi(get, async (c) =>
    ok(c, presentTemplate(await getTemplate(c.var.ctx.db, c.req.valid("param").template_id), c.var.ctx.workspace.id), "Template found.", 200),
  )
  .openapi(use, async (c) => {
    const options = await useOptions(await c.req.text());
    const { template, workflow, deployed } = await useTemplate(c.var.ctx, c.req.valid("param").template_id, options);
    if (!deployed) return ok(c, presentWorkflow(workflow), `Created workflow ${workflow.id} from template ${template.id}.`, 201);
    c.header("Cache-Control", "no-store");
    const agent = { ...(await presentOwnedAgent(c.var.ctx, deployed.agent.id, new URL(c.req.url).origin)), webhook_secret: deployed.webhookSecret };
    return ok(
      c,
      { ...presentWorkflow(workflow), agent },
      `Created workflow ${workflow.id} from template ${template.id} and deployed it as agent ${deployed.agent.id}.`,
      201,
    );
  })
  .openapi(publish, async (c) => {
    const template = await publishWorkflow(c.var.ctx, c.req.valid("param").workflow_id, c.req.valid("json"));
    return ok(c, presentTemplate(template, c.var.ctx.workspace.id), "Published.", 201);
  })
  .openapi(withdraw, async (c) => {
    await unpublish(c.var.ctx, c.req.valid("param").template_id);
    return c.body(null, 204);
  });
