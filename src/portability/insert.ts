import { and, count, eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { type Workflow, workflowVersions, workflows } from "../db/schema";
import { randomToken } from "../lib/crypto";
import { auditStatement } from "../workspaces/audit";
import { type SavedWorkflow, changingWorkflows, notifySecretContext } from "../workflows/service";
import type { Trigger } from "../workflows/triggers";

/** A workflow of a bundle, checked, waiting for the ids of the workflows it names. */
export interface ImportedWorkflow {
  ref: string;
  name: string;
  description: string;
  status: Workflow["status"];
  trigger: Trigger;
  variables: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /** Its steps and settings once every workflow of the bundle has its id. */
  complete: (idOf: (ref: string) => number) => { steps: unknown[]; settings: Record<string, unknown> };
}

/**
 * Writes a bundle's workflows all or none. Workflows of a bundle name each other (a circle too),
 * so no order lets each be written whole: one batch inserts them all as drafts without steps
 * (their ids come back), a second gives each its steps, settings and status, records its first
 * version and its audit row. The first batch is held to the workflow quota as a whole; if the
 * second fails, the drafts are deleted again.
 */
export async function insertImported(ctx: ServiceContext, imported: ImportedWorkflow[]): Promise<SavedWorkflow[]> {
  return changingWorkflows(ctx, async () => {
    const max = ctx.config.quotas.workflowsPerUser;
    const held = eq(workflows.userId, ctx.workspace.id);
    const full = () => new HubError("quota_exceeded", `A workspace can hold at most ${max} workflows; this import needs room for ${imported.length}.`);
    if ((await ctx.db.$count(workflows, held)) + imported.length > max) throw full();

    const inserts = imported.map((workflow) =>
      ctx.db
        .insert(workflows)
        .values({
          userId: ctx.workspace.id,
          name: workflow.name,
          description: workflow.description,
          status: "draft",
          triggerType: workflow.trigger.type,
          triggerConfig: workflow.trigger.config,
          variables: workflow.variables,
          metadata: workflow.metadata,
          steps: [],
        })
        .returning(),
    );
    const counted = ctx.db.select({ n: count() }).from(workflows).where(held);
    const results = (await ctx.db.batch([inserts[0]!, ...inserts.slice(1), counted])) as unknown as unknown[];
    const rows = results.slice(0, imported.length).map((result) => (result as Workflow[])[0]!);
    const ids = new Map(imported.map((workflow, i) => [workflow.ref, rows[i]!.id]));
    const removeAll = () => ctx.db.delete(workflows).where(and(held, inArray(workflows.id, [...ids.values()])));
    // Counted after the inserts in the same transaction: concurrent creates cannot all pass the quota.
    const total = (results.at(-1) as { n: number }[])[0]!.n;
    if (total > max) {
      await removeAll();
      throw full();
    }

    try {
      return await completeAll(ctx, imported, rows, (ref) => ids.get(ref)!);
    } catch (error) {
      await removeAll();
      throw error;
    }
  });
}

async function completeAll(ctx: ServiceContext, imported: ImportedWorkflow[], rows: Workflow[], idOf: (ref: string) => number): Promise<SavedWorkflow[]> {
  const box = await ctx.secrets();
  const statements: BatchItem<"sqlite">[] = [];
  const saved: SavedWorkflow[] = [];
  for (const [i, workflow] of imported.entries()) {
    const row = rows[i]!;
    const { steps, settings } = workflow.complete(idOf);
    // A workflow that sends notifications gets its own signing secret, shown once in the answer, as a created one does.
    const notifySecret = settings.notify ? `whsec_${randomToken(32)}` : undefined;
    const sealed = notifySecret ? await box.seal(notifySecret, notifySecretContext(row.id)) : null;
    statements.push(
      ctx.db.update(workflows).set({ steps, settings, status: workflow.status, notifySecret: sealed }).where(eq(workflows.id, row.id)),
      ctx.db.insert(workflowVersions).values({ workflowId: row.id, version: row.version, steps }),
      auditStatement(ctx, { action: "workflow.created", target: { type: "workflow", id: row.id }, detail: { name: row.name, imported: true } }),
    );
    saved.push({ ...row, steps, settings, status: workflow.status, notifySecret: sealed, ...(notifySecret ? { revealedNotifySecret: notifySecret } : {}) });
  }
  await ctx.db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return saved;
}
