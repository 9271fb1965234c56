import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { templates, type Template, type Workflow } from "../db/schema";
import { ApiError, notFound } from "../http/errors";
import { REDACTED, redactArguments } from "../tools/redact";
import { randomToken } from "../auth/crypto";

export interface TemplateFilters {
  category?: string | null;
  difficulty?: string | null;
  search?: string | null;
  connection?: string | null;
}

/** Templates a user can see: the catalog, everyone's published ones. Filters combine (AND). */
export async function listTemplates(db: Db, filters: TemplateFilters): Promise<Template[]> {
  const rows = await db.select().from(templates).orderBy(desc(templates.featured), desc(templates.useCount), templates.name).limit(500).all();
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
  const row = await db.select().from(templates).where(eq(templates.id, id)).get();
  if (!row) throw notFound("Template");
  return row;
}

/** Counts a use; the template itself is never changed otherwise. */
export async function countUse(db: Db, id: string): Promise<void> {
  await db.update(templates).set({ useCount: sql`${templates.useCount} + 1` }).where(eq(templates.id, id));
}

/**
 * Publishes a workflow as a template: a copy whose arguments lose connection ids and anything
 * that looks like a secret, so nothing private travels with it.
 */
export async function publishWorkflow(db: Db, userId: number, workflow: Workflow, meta: { category: string; difficulty: Template["difficulty"]; tags: string[]; requiredConnections: string[] }): Promise<Template> {
  const steps = stripPrivate(workflow.steps) as unknown[];
  const variables = Object.fromEntries(Object.entries(stripPrivate(workflow.variables) as Record<string, unknown>).map(([name, value]) => [name, { default: value, description: "" }]));
  const [row] = await db
    .insert(templates)
    .values({
      id: `user-${userId}-${randomToken(6).toLowerCase()}`,
      name: workflow.name,
      description: workflow.description || workflow.name,
      category: meta.category,
      difficulty: meta.difficulty,
      requiredConnections: meta.requiredConnections,
      tags: meta.tags,
      triggerType: workflow.triggerType,
      triggerConfig: workflow.triggerConfig,
      variables,
      steps,
      authorUserId: userId,
      sourceWorkflowId: workflow.id,
    })
    .returning();
  return row!;
}

export async function unpublish(db: Db, userId: number, id: string): Promise<void> {
  const deleted = await db.delete(templates).where(and(eq(templates.id, id), eq(templates.authorUserId, userId))).returning({ id: templates.id });
  if (deleted.length === 0) {
    const exists = await db.select({ id: templates.id }).from(templates).where(eq(templates.id, id)).get();
    if (exists) throw new ApiError("forbidden", "Only its publisher can unpublish a template.");
    throw notFound("Template");
  }
}

/** Removes connection ids and secret-looking values from step arguments, recursively. */
function stripPrivate(value: unknown): any {
  const redacted = redactArguments(value);
  const drop = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(drop);
    if (node && typeof node === "object") {
      return Object.fromEntries(
        Object.entries(node)
          .filter(([key, child]) => key !== "connection_id" && child !== REDACTED)
          .map(([key, child]) => [key, drop(child)]),
      );
    }
    return node;
  };
  return drop(redacted);
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

