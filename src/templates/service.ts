import type { ServiceContext } from "../core/context";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { templateUses, templates, workflows, type Template } from "../db/schema";
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

/** Templates a user can see: the catalog, everyone's published ones. Filters combine (AND). */
export async function listTemplates(db: Db, filters: TemplateFilters): Promise<Template[]> {
  const rows = await db.select().from(templates).where(readable).orderBy(desc(templates.featured), desc(templates.useCount), templates.name).limit(500).all();
  const search = filters.search?.trim().toLowerCase();
  return rows.filter(
    (t) =>
      (!filters.category || t.category === filters.category) &&
      (!filters.difficulty || t.difficulty === filters.difficulty) &&
      (!filters.connection || t.requiredConnections.includes(filters.connection)) &&
      (!search || [t.name, t.description, ...t.tags].some((text) => text.toLowerCase().includes(search))),
  );
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
export function rankFeatured(all: Template[], count = 10): Template[] {
  const score = (t: Template) => t.useCount + (t.featured ? FEATURED_LEAD : 0);
  return [...all].sort((a, b) => score(b) - score(a) || Number(b.featured) - Number(a.featured) || a.name.localeCompare(b.name)).slice(0, count);
}

/**
 * Publishes a workflow as a template: a copy whose arguments lose connection ids and anything
 * that looks like a secret, so nothing private travels with it.
 */
export async function publishWorkflow(
  ctx: ServiceContext,
  workflowId: number,
  meta: { category: string; difficulty: Template["difficulty"]; tags: string[] },
): Promise<Template> {
  const workflow = await getOwnedWorkflow(ctx, workflowId);
  const { name, description, steps, variables, triggerConfig } = templateContentOf(workflow);
  const [row] = await ctx.db
    .insert(templates)
    .values({
      id: `user-${ctx.user.id}-${randomToken(6).toLowerCase()}`,
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
      authorUserId: ctx.user.id,
      sourceWorkflowId: workflow.id,
    })
    .returning();
  await markPublished(ctx, workflow.id);
  return row!;
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
    .where(and(eq(templates.id, id), eq(templates.authorUserId, ctx.user.id)))
    .returning({ id: templates.id, sourceWorkflowId: templates.sourceWorkflowId });
  if (deleted.length === 0) {
    const exists = await ctx.db.select({ id: templates.id }).from(templates).where(eq(templates.id, id)).get();
    if (exists) throw new HubError("forbidden", "Only its publisher can unpublish a template.");
    throw notFound("Template");
  }
  await markPublished(ctx, deleted[0]!.sourceWorkflowId);
}

export function presentTemplate(t: Template) {
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
    source_workflow_id: t.sourceWorkflowId,
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
    }
  };
  walk(steps);
  return [...found].sort();
}
