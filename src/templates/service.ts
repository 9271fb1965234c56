import type { ServiceContext } from "../core/context";
import { type SQL, and, desc, eq, inArray, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { templateUses, templates, workflows, type Template } from "../db/schema";
import { insertWithinQuota } from "../db/quota";
import { HubError, notFound, type FieldError } from "../core/errors";
import { templateContentOf } from "./sanitize";
import { randomToken } from "../lib/crypto";
import { parseToolName } from "../tools/catalog";
import { changingWorkflows, getOwnedWorkflow } from "../workflows/service";

export interface TemplateFilters {
  category?: string | null;
  difficulty?: string | null;
  search?: string | null;
  connection?: string | null;
}

/**
 * Rows whose JSON columns can be read (and whose tags and required connections are lists). A
 * row cut short where it was stored is left out of lists and answers 409 on its own, so one
 * damaged row never turns the marketplace into a 500. CASE keeps json_type away from invalid JSON.
 */
const readable = sql`CASE WHEN json_valid(${templates.steps}) AND json_valid(${templates.variables}) AND json_valid(${templates.triggerConfig})
  AND json_valid(${templates.tags}) AND json_valid(${templates.requiredConnections})
  THEN json_type(${templates.tags}) = 'array' AND json_type(${templates.requiredConnections}) = 'array' ELSE 0 END`;

/** Catalog rows one list reads at most (the seeded catalog holds about thirty). */
const CATALOG_IN_LIST = 200;
/** Published templates one list reads at most: the most used, newest first among equals. */
export const PUBLISHED_IN_LIST = 50;
/**
 * Characters of published steps, variables and trigger config that one list carrying them
 * (REST `/templates`, `/templates/categories`) holds at most; the catalog is always whole.
 */
export const PUBLISHED_CONTENT_IN_LIST = 1_000_000;

/** What a list of templates shows: everything but the content (steps, variables, trigger config) and the source workflow. */
export type TemplateSummary = Omit<Template, "steps" | "variables" | "triggerConfig" | "sourceWorkflowId"> & {
  stepCount: number;
  /** Characters of the template's steps, variables and trigger config as stored. */
  contentChars: number;
};

const summaryColumns = {
  id: templates.id,
  name: templates.name,
  description: templates.description,
  category: templates.category,
  difficulty: templates.difficulty,
  requiredConnections: templates.requiredConnections,
  tags: templates.tags,
  featured: templates.featured,
  useCount: templates.useCount,
  triggerType: templates.triggerType,
  authorUserId: templates.authorUserId,
  createdAt: templates.createdAt,
  updatedAt: templates.updatedAt,
  stepCount: sql<number>`CASE WHEN json_valid(${templates.steps}) AND json_type(${templates.steps}) = 'array' THEN json_array_length(${templates.steps}) ELSE 0 END`,
  contentChars: sql<number>`length(${templates.steps}) + length(${templates.variables}) + length(${templates.triggerConfig})`,
};

/** The filters as SQL, so the bounded window below is taken from the matching rows. Search folds ASCII case. */
function filterConditions(filters: TemplateFilters): SQL[] {
  const conditions: SQL[] = [];
  if (filters.category) conditions.push(eq(templates.category, filters.category));
  if (filters.difficulty) conditions.push(eq(templates.difficulty, filters.difficulty as Template["difficulty"]));
  if (filters.connection) {
    conditions.push(
      sql`CASE WHEN json_valid(${templates.requiredConnections}) THEN EXISTS (SELECT 1 FROM json_each(${templates.requiredConnections}) WHERE value = ${filters.connection}) ELSE 0 END`,
    );
  }
  const search = filters.search?.trim().toLowerCase();
  if (search) {
    conditions.push(sql`(instr(lower(${templates.name}), ${search}) > 0 OR instr(lower(${templates.description}), ${search}) > 0
      OR CASE WHEN json_valid(${templates.tags}) THEN EXISTS (SELECT 1 FROM json_each(${templates.tags}) WHERE instr(lower(value), ${search}) > 0) ELSE 0 END)`);
  }
  return conditions;
}

/**
 * Templates a user can see, as summaries: the whole built-in catalog, at most PUBLISHED_IN_LIST
 * published ones (the most used, newest first among equals) and, with `viewerId`, as many of the
 * viewer's own, so a publisher always finds theirs. Each part is taken on its own, so published
 * templates, whatever their names, never push the catalog out. Filters combine (AND). Featured
 * first, then most used, then by name.
 */
export async function listTemplates(db: Db, filters: TemplateFilters, viewerId?: number): Promise<TemplateSummary[]> {
  const matching = filterConditions(filters);
  const catalog = db
    .select({ id: templates.id })
    .from(templates)
    .where(and(isNull(templates.authorUserId), ...matching))
    .orderBy(desc(templates.featured), templates.id)
    .limit(CATALOG_IN_LIST);
  const published = db
    .select({ id: templates.id })
    .from(templates)
    .where(and(isNotNull(templates.authorUserId), ...matching))
    .orderBy(desc(templates.useCount), desc(templates.createdAt), desc(templates.id))
    .limit(PUBLISHED_IN_LIST);
  const own =
    viewerId === undefined
      ? undefined
      : db
          .select({ id: templates.id })
          .from(templates)
          .where(and(eq(templates.authorUserId, viewerId), ...matching))
          .orderBy(desc(templates.createdAt), desc(templates.id))
          .limit(PUBLISHED_IN_LIST);
  return db
    .select(summaryColumns)
    .from(templates)
    .where(and(or(inArray(templates.id, catalog), inArray(templates.id, published), own && inArray(templates.id, own)), readable))
    .orderBy(desc(templates.featured), desc(templates.useCount), templates.name)
    .all();
}

/**
 * The list with each template's content, for answers that carry it: the summaries' window,
 * published templates only until PUBLISHED_CONTENT_IN_LIST characters of their content are reached.
 */
export async function listTemplatesWithContent(db: Db, filters: TemplateFilters, viewerId?: number): Promise<Template[]> {
  const chosen: TemplateSummary[] = [];
  let budget = PUBLISHED_CONTENT_IN_LIST;
  for (const t of await listTemplates(db, filters, viewerId)) {
    if (t.authorUserId !== null) budget -= t.contentChars;
    // Once over the budget, no later published template is carried (the list stays in rank order).
    if (t.authorUserId === null || budget >= 0) chosen.push(t);
  }
  return withContent(db, chosen);
}

/** The featured list (see `rankFeatured`) with each template's content. */
export async function featuredTemplates(db: Db, count = 10): Promise<Template[]> {
  return withContent(db, rankFeatured(await listTemplates(db, {}), count));
}

/** Whole rows for summaries, in the summaries' order (a row gone or damaged meanwhile is left out). */
async function withContent(db: Db, summaries: TemplateSummary[]): Promise<Template[]> {
  const ids = summaries.map((t) => t.id);
  // D1 binds at most 100 values per statement.
  const chunks = Array.from({ length: Math.ceil(ids.length / 90) }, (_, i) => ids.slice(i * 90, i * 90 + 90));
  const rows = (
    await Promise.all(
      chunks.map((chunk) =>
        db
          .select()
          .from(templates)
          .where(and(inArray(templates.id, chunk), readable))
          .all(),
      ),
    )
  ).flat();
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export async function getTemplate(db: Db, id: string): Promise<Template> {
  const row = await db
    .select()
    .from(templates)
    .where(and(eq(templates.id, id), readable))
    .get();
  if (row) return row;
  const exists = await db.select({ id: templates.id }).from(templates).where(eq(templates.id, id)).get();
  if (exists) throw damagedTemplate("part of it is not readable JSON");
  throw notFound("Template");
}

export const damagedTemplate = (why: string, errors?: FieldError[]) =>
  new HubError("conflict", `This template is damaged and cannot be used: ${why}. Its publisher can publish it again.`, { errors });

/**
 * Counts a use: once per user, and never the publisher's own, so `use_count` is the number of
 * people who copied the template. The template itself is never changed otherwise.
 */
export async function countUse(db: Db, template: Template, userId: number): Promise<void> {
  if (template.authorUserId === userId) return;
  const first = await db.insert(templateUses).values({ templateId: template.id, userId }).onConflictDoNothing().returning({ userId: templateUses.userId });
  if (first.length)
    await db
      .update(templates)
      .set({ useCount: sql`${templates.useCount} + 1` })
      .where(eq(templates.id, template.id));
}

/**
 * How far ahead of published templates the built-in featured ones start: a published template
 * outranks a featured one only once this many more people have used it.
 */
export const FEATURED_LEAD = 100;

/** The featured list: featured templates first unless real use by many people outranks them. */
export function rankFeatured<T extends Pick<Template, "featured" | "useCount" | "name">>(all: T[], count = 10): T[] {
  const score = (t: T) => t.useCount + (t.featured ? FEATURED_LEAD : 0);
  return [...all].sort((a, b) => score(b) - score(a) || Number(b.featured) - Number(a.featured) || a.name.localeCompare(b.name)).slice(0, count);
}

/**
 * Publishes a workflow as a template: a copy whose arguments lose connection ids and anything
 * that looks like a secret, so nothing private travels with it. Within the account's quota
 * (MAX_PUBLISHED_TEMPLATES_PER_USER), which counts every template published, the same workflow's too.
 */
export async function publishWorkflow(
  ctx: ServiceContext,
  workflowId: number,
  meta: { category: string; difficulty: Template["difficulty"]; tags: string[] },
): Promise<Template> {
  const workflow = await getOwnedWorkflow(ctx, workflowId);
  const { name, description, steps, variables, triggerConfig } = templateContentOf(workflow);
  const maxPublished = ctx.config.quotas.publishedTemplatesPerUser;
  const held = eq(templates.authorUserId, ctx.workspace.id);
  const full = () => new HubError("quota_exceeded", `An account can have at most ${maxPublished} published templates; unpublish one first.`);
  if ((await ctx.db.$count(templates, held)) >= maxPublished) throw full();
  const insert = ctx.db
    .insert(templates)
    .values({
      // Random: an id must not tell other users who published it (older ids named the user).
      id: `tpl-${randomToken(12).toLowerCase()}`,
      name,
      description: description || name,
      category: meta.category,
      difficulty: meta.difficulty,
      requiredConnections: requiredPlatforms(workflow.steps),
      tags: meta.tags,
      triggerType: workflow.triggerType,
      triggerConfig,
      variables,
      steps,
      authorUserId: ctx.workspace.id,
      sourceWorkflowId: workflow.id,
    })
    .returning();
  const row = await insertWithinQuota<Template>(ctx.db, insert, templates, held, maxPublished);
  if (!row) throw full();
  await markPublished(ctx, workflow.id);
  return row;
}

/**
 * A workflow's `is_template` says whether it is published as at least one template now. Only its
 * owner publishes or unpublishes it, so the caller's cached workflow lists are the ones to forget.
 */
async function markPublished(ctx: ServiceContext, workflowId: number | null): Promise<void> {
  if (workflowId === null) return;
  const still = await ctx.db.select({ id: templates.id }).from(templates).where(eq(templates.sourceWorkflowId, workflowId)).get();
  await changingWorkflows(ctx, () =>
    ctx.db
      .update(workflows)
      .set({ isTemplate: Boolean(still) })
      .where(eq(workflows.id, workflowId)),
  );
}

export async function unpublish(ctx: ServiceContext, id: string): Promise<void> {
  const deleted = await ctx.db
    .delete(templates)
    .where(and(eq(templates.id, id), eq(templates.authorUserId, ctx.workspace.id)))
    .returning({ id: templates.id, sourceWorkflowId: templates.sourceWorkflowId });
  if (deleted.length === 0) {
    const exists = await ctx.db.select({ id: templates.id }).from(templates).where(eq(templates.id, id)).get();
    if (exists) throw new HubError("forbidden", "Only its publisher can unpublish a template.");
    throw notFound("Template");
  }
  await markPublished(ctx, deleted[0]!.sourceWorkflowId);
}

/**
 * A template as the API shows it to `viewerId`: only its publisher sees which workflow it was
 * published from (everyone else gets null), so the answer reveals nothing about other accounts.
 */
export function presentTemplate(t: Template, viewerId?: number) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    category: t.category,
    difficulty: t.difficulty,
    required_connections: t.requiredConnections,
    tags: t.tags,
    featured: t.featured,
    use_count: t.useCount,
    trigger_type: t.triggerType,
    trigger_config: t.triggerConfig,
    variables: t.variables,
    steps: t.steps,
    published_by_user: t.authorUserId !== null,
    source_workflow_id: viewerId !== undefined && t.authorUserId === viewerId ? t.sourceWorkflowId : null,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

/** Platform ids a workflow's tool steps need (native platform tools and MCP tools). */
function requiredPlatforms(steps: unknown[]): string[] {
  const found = new Set<string>();
  const walk = (list: unknown[]) => {
    for (const step of list as Record<string, any>[]) {
      if (step?.type === "tool") {
        const ref = parseToolName(String(step.tool));
        if (ref?.kind === "platform") found.add(ref.platform.id);
        if (ref?.kind === "mcp") found.add("mcp");
      }
      if (step?.type === "condition") walk([...(step.then ?? []), ...(step.else ?? [])]);
      if (Array.isArray(step?.on_error?.steps)) walk(step.on_error.steps);
    }
  };
  walk(steps);
  return [...found].sort();
}
