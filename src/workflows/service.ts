import type { ServiceContext } from "../core/context";
import { and, desc, eq, isNull, lt, notInArray, sql } from "drizzle-orm";
import { workflowVersions, workflows, type Workflow } from "../db/schema";
import { insertWithinQuota } from "../db/quota";
import { HubError, notFound } from "../core/errors";
import { type WorkflowSettings, validateSteps } from "./steps";
import { randomToken } from "../lib/crypto";
import { firstPageOfSummaries, firstPageOfWorkflows, forgetCachedWorkflows } from "./cached";
import { describeBytes } from "../lib/bytes";
import { checkedTrigger } from "./triggers";
import { codeSyntaxErrors } from "./code-syntax";
import { checkReferences } from "./references";
import { auditStatement } from "../workspaces/audit";

export interface WorkflowInput {
  name: string;
  description: string;
  steps: unknown[];
  status?: Workflow["status"];
  triggerType?: string;
  triggerConfig?: Record<string, unknown>;
  variables?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  settings?: Record<string, unknown>;
}

/** Parses the steps (code steps' code compiled, never run) or answers 422 with every problem, each naming its step and field. */
export async function checkedSteps(raw: unknown[], field = "steps") {
  const { steps, errors } = validateSteps(raw, field);
  if (!errors.length) errors.push(...(await codeSyntaxErrors(steps, field)));
  if (errors.length) throw new HubError("validation_failed", "The workflow's steps are not valid.", { errors });
  return steps;
}

/** What counts against MAX_WORKFLOW_BYTES: the characters of the JSON of the steps, variables, settings and metadata. */
export function workflowSize(workflow: Pick<WorkflowInput, "steps" | "variables" | "settings" | "metadata">): number {
  const json = (value: unknown) => JSON.stringify(value ?? {}).length;
  return json(workflow.steps) + json(workflow.variables) + json(workflow.settings) + json(workflow.metadata);
}

/**
 * A workflow is copied into every run and version and read by every list that shows it: its size
 * is bounded on every path that saves one (this service's create and update), not only by the
 * request body's limit. 422 `limit_exceeded`.
 */
function checkSize(ctx: ServiceContext, workflow: Pick<WorkflowInput, "steps" | "variables" | "settings" | "metadata">) {
  const limit = ctx.config.quotas.workflowBytes;
  const size = workflowSize(workflow);
  if (size <= limit) return;
  throw new HubError(
    "limit_exceeded",
    `The workflow's steps, variables, settings and metadata come to ${size} characters of JSON, more than the ${limit} (${describeBytes(limit)}) a workflow may hold (MAX_WORKFLOW_BYTES). ` +
      "Pass large data in the run's input rather than in set values, tool arguments or variables.",
  );
}

/** Creates a workflow for the caller, within the account's quota (MAX_WORKFLOWS_PER_USER). */
export function createWorkflow(ctx: ServiceContext, input: WorkflowInput): Promise<SavedWorkflow> {
  return changingWorkflows(ctx, () => insertWorkflow(ctx, input));
}

async function insertWorkflow(ctx: ServiceContext, input: WorkflowInput): Promise<SavedWorkflow> {
  const maxWorkflows = ctx.config.quotas.workflowsPerUser;
  const steps = await checkedSteps(input.steps);
  checkSize(ctx, { steps, variables: input.variables, settings: input.settings, metadata: input.metadata });
  await checkReferences(ctx, steps, input.settings);
  const trigger = checkedTrigger(input.triggerType ?? "manual", input.triggerConfig ?? {}, ctx.config.quotas.minIntervalSeconds);
  const held = eq(workflows.userId, ctx.workspace.id);
  const full = () => new HubError("quota_exceeded", `An account can hold at most ${maxWorkflows} workflows; delete one first.`);
  if ((await ctx.db.$count(workflows, held)) >= maxWorkflows) throw full();
  const insert = ctx.db
    .insert(workflows)
    .values({
      userId: ctx.workspace.id,
      name: input.name,
      description: input.description,
      steps,
      status: input.status ?? "active",
      triggerType: trigger.type,
      triggerConfig: trigger.config,
      variables: input.variables ?? {},
      metadata: input.metadata ?? {},
      settings: input.settings ?? {},
    })
    .returning();
  // The new row is the transaction's last insert (a quota may have taken it back: then no record).
  const inserted = sql`(SELECT ${workflows.id} FROM ${workflows} WHERE rowid = last_insert_rowid() AND ${held})`;
  const audit = auditStatement(
    ctx,
    { action: "workflow.created", target: { type: "workflow", id: sql`CAST(${inserted} AS TEXT)` }, detail: { name: input.name } },
    sql`EXISTS ${inserted}`,
  );
  const row = await insertWithinQuota<Workflow>(ctx.db, insert, workflows, held, maxWorkflows, [audit]);
  if (!row) throw full();
  await recordVersion(ctx, row);
  return syncNotifySecret(ctx, row);
}

export async function getOwnedWorkflow(ctx: ServiceContext, id: number): Promise<Workflow> {
  const row = await ctx.db
    .select()
    .from(workflows)
    .where(and(eq(workflows.id, id), eq(workflows.userId, ctx.workspace.id)))
    .get();
  if (!row) throw notFound("Workflow");
  return row;
}

/** The caller's workflows, newest first: `limit` of them older than `beforeId`, or the first page (see cached.ts). */
export function listWorkflows(ctx: ServiceContext, limit: number, beforeId?: number): Promise<Workflow[]> {
  if (beforeId === undefined) return firstPageOfWorkflows(ctx, limit, () => readWorkflows(ctx, limit));
  return readWorkflows(ctx, limit, beforeId);
}

function readWorkflows(ctx: ServiceContext, limit: number, beforeId?: number) {
  return ctx.db
    .select()
    .from(workflows)
    .where(and(eq(workflows.userId, ctx.workspace.id), beforeId ? lt(workflows.id, beforeId) : undefined))
    .orderBy(desc(workflows.id))
    .limit(limit)
    .all();
}

/**
 * What a list of workflows shows, read without their steps (each may hold up to MAX_WORKFLOW_BYTES):
 * how many top-level steps there are is counted in SQL.
 */
export interface WorkflowSummary {
  id: number;
  name: string;
  description: string;
  status: Workflow["status"];
  version: number;
  stepCount: number;
  updatedAt: Date;
}

/** The caller's newest `limit` workflows as lists show them (the first page is kept per isolate, as listWorkflows'). */
export function listWorkflowSummaries(ctx: ServiceContext, limit: number): Promise<WorkflowSummary[]> {
  return firstPageOfSummaries(ctx, limit, () =>
    ctx.db
      .select({
        id: workflows.id,
        name: workflows.name,
        description: workflows.description,
        status: workflows.status,
        version: workflows.version,
        stepCount: sql<number>`json_array_length(${workflows.steps})`,
        updatedAt: workflows.updatedAt,
      })
      .from(workflows)
      .where(eq(workflows.userId, ctx.workspace.id))
      .orderBy(desc(workflows.id))
      .limit(limit)
      .all(),
  );
}

/** The caller's active workflows (the ones that can run), newest first, with what their MCP tools show. */
export function listActiveWorkflows(ctx: ServiceContext, limit: number) {
  return ctx.db
    .select({ id: workflows.id, name: workflows.name, description: workflows.description, version: workflows.version, variables: workflows.variables })
    .from(workflows)
    .where(and(eq(workflows.userId, ctx.workspace.id), eq(workflows.status, "active")))
    .orderBy(desc(workflows.id))
    .limit(limit)
    .all();
}

type TriggerFollowUp = (ctx: ServiceContext, workflow: Workflow) => Promise<void>;
let triggerFollowUp: TriggerFollowUp | undefined;

/**
 * What runs after a workflow's trigger changed: the agents feature re-arms the workflow's agents.
 * The app wires it in (src/app.ts), because the agents feature imports this one.
 */
export function onTriggerChange(followUp: TriggerFollowUp): void {
  triggerFollowUp = followUp;
}

/**
 * Applies the fields given; the version goes up by one when the steps change. A changed trigger
 * is validated and its follow-up (re-arming the workflow's agents) runs before this returns.
 */
export async function updateWorkflow(ctx: ServiceContext, id: number, patch: Partial<WorkflowInput>): Promise<SavedWorkflow> {
  const { row, triggerChanged } = await changingWorkflows(ctx, () => applyPatch(ctx, id, patch));
  if (triggerChanged) {
    if (!triggerFollowUp) throw new Error("No trigger follow-up is wired: createApp() registers the agents' re-arming.");
    await triggerFollowUp(ctx, row);
  }
  return row;
}

/** The trigger a patch leaves: a new type without a config starts from an empty config. */
function patchedTrigger(ctx: ServiceContext, current: Workflow, patch: Partial<WorkflowInput>) {
  if (patch.triggerType === undefined && patch.triggerConfig === undefined) return undefined;
  const type = patch.triggerType ?? current.triggerType;
  const config = patch.triggerConfig ?? (type === current.triggerType ? current.triggerConfig : {});
  return checkedTrigger(type, config, ctx.config.quotas.minIntervalSeconds);
}

async function applyPatch(ctx: ServiceContext, id: number, patch: Partial<WorkflowInput>): Promise<{ row: SavedWorkflow; triggerChanged: boolean }> {
  const current = await getOwnedWorkflow(ctx, id);
  const steps = patch.steps ? await checkedSteps(patch.steps) : undefined;
  const trigger = patchedTrigger(ctx, current, patch);
  const triggerChanged =
    trigger !== undefined && (trigger.type !== current.triggerType || JSON.stringify(trigger.config) !== JSON.stringify(current.triggerConfig));
  // Only a change that can grow it is checked: a workflow saved under a larger limit can still be renamed or paused.
  if (steps || patch.variables || patch.settings || patch.metadata) {
    checkSize(ctx, {
      steps: steps ?? current.steps,
      variables: patch.variables ?? current.variables,
      settings: patch.settings ?? current.settings,
      metadata: patch.metadata ?? current.metadata,
    });
  }
  await checkReferences(ctx, steps, patch.settings, current);
  const stepsChanged = steps !== undefined && JSON.stringify(steps) !== JSON.stringify(current.steps);
  const update = ctx.db
    .update(workflows)
    .set({
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.status !== undefined ? { status: patch.status } : {}),
      ...(trigger ? { triggerType: trigger.type, triggerConfig: trigger.config } : {}),
      ...(patch.variables !== undefined ? { variables: patch.variables } : {}),
      ...(patch.metadata !== undefined ? { metadata: patch.metadata } : {}),
      ...(patch.settings !== undefined ? { settings: keptLenience(current.settings, patch.settings) } : {}),
      ...(stepsChanged ? { steps, version: current.version + 1 } : {}),
      updatedAt: new Date(),
    })
    .where(and(eq(workflows.id, id), eq(workflows.userId, ctx.workspace.id)))
    .returning();
  const fields = changedFields(current, patch, { stepsChanged, trigger });
  const audit = auditStatement(
    ctx,
    {
      action: "workflow.updated",
      target: { type: "workflow", id },
      detail: { name: patch.name ?? current.name, fields, ...(stepsChanged ? { version: current.version + 1 } : {}) },
    },
    sql`changes() = 1`,
  );
  // A save that changes nothing (the same values sent again) is not a change to record.
  const [row] = fields.length ? (await ctx.db.batch([update, audit]))[0] : await update;
  if (stepsChanged) await recordVersion(ctx, row!);
  return { row: await syncNotifySecret(ctx, row!), triggerChanged };
}

/** The fields (as the API names them) a patch changes, for the audit trail. */
function changedFields(
  current: Workflow,
  patch: Partial<WorkflowInput>,
  changes: { stepsChanged: boolean; trigger?: { type: string; config: Record<string, unknown> } },
): string[] {
  const differs = (next: unknown, now: unknown) => next !== undefined && JSON.stringify(next) !== JSON.stringify(now);
  return [
    differs(patch.name, current.name) && "name",
    differs(patch.description, current.description) && "description",
    differs(patch.status, current.status) && "status",
    differs(changes.trigger?.type, current.triggerType) && "trigger_type",
    differs(changes.trigger?.config, current.triggerConfig) && "trigger_config",
    differs(patch.variables, current.variables) && "variables",
    differs(patch.metadata, current.metadata) && "workflow_metadata",
    differs(patch.settings && keptLenience(current.settings, patch.settings), current.settings) && "settings",
    changes.stepsChanged && "steps",
  ].filter((field): field is string => typeof field === "string");
}

/** A workflow just saved; `revealedNotifySecret` is set the one time its notify secret is made. */
export type SavedWorkflow = Workflow & { revealedNotifySecret?: string };

/**
 * A workflow whose settings ask for notifications gets a signing secret the first time (stored
 * sealed, the plaintext returned this once); one whose settings no longer ask loses it.
 */
async function syncNotifySecret(ctx: ServiceContext, row: Workflow): Promise<SavedWorkflow> {
  const wantsNotify = Boolean((row.settings as WorkflowSettings).notify);
  if (wantsNotify === Boolean(row.notifySecret)) return row;
  if (!wantsNotify) {
    await ctx.db.update(workflows).set({ notifySecret: null }).where(eq(workflows.id, row.id));
    return { ...row, notifySecret: null };
  }
  const secret = `whsec_${randomToken(32)}`;
  const sealed = await (await ctx.secrets()).seal(secret, notifySecretContext(row.id));
  // Only if none was set meanwhile (two saves at once): the secret shown is the one kept.
  const [kept] = await ctx.db
    .update(workflows)
    .set({ notifySecret: sealed })
    .where(and(eq(workflows.id, row.id), isNull(workflows.notifySecret)))
    .returning({ id: workflows.id });
  return kept ? { ...row, notifySecret: sealed, revealedNotifySecret: secret } : row;
}

export const notifySecretContext = (workflowId: number) => `workflow:${workflowId}:notify_secret`;

/**
 * Records the steps of a workflow's current version (on create, and when the steps change), and in
 * the same batch drops all but the newest MAX_WORKFLOW_VERSIONS of them; see versions.ts.
 */
async function recordVersion(ctx: ServiceContext, workflow: Pick<Workflow, "id" | "version" | "steps">): Promise<void> {
  const ofThisWorkflow = eq(workflowVersions.workflowId, workflow.id);
  const kept = ctx.db
    .select({ version: workflowVersions.version })
    .from(workflowVersions)
    .where(ofThisWorkflow)
    .orderBy(desc(workflowVersions.version))
    .limit(ctx.config.quotas.workflowVersions);
  await ctx.db.batch([
    ctx.db.insert(workflowVersions).values({ workflowId: workflow.id, version: workflow.version, steps: workflow.steps }).onConflictDoNothing(),
    ctx.db.delete(workflowVersions).where(and(ofThisWorkflow, notInArray(workflowVersions.version, kept))),
  ]);
}

export async function deleteWorkflow(ctx: ServiceContext, id: number): Promise<void> {
  const mine = and(eq(workflows.id, id), eq(workflows.userId, ctx.workspace.id));
  // Recorded first, while the row is there to name it; the delete in the same transaction follows.
  const audit = auditStatement(
    ctx,
    {
      action: "workflow.deleted",
      target: { type: "workflow", id },
      detail: sql`(SELECT json_object('name', ${workflows.name}) FROM ${workflows} WHERE ${mine})`,
    },
    sql`EXISTS (SELECT 1 FROM ${workflows} WHERE ${mine})`,
  );
  const [, deleted] = await changingWorkflows(ctx, () => ctx.db.batch([audit, ctx.db.delete(workflows).where(mine).returning({ id: workflows.id })]));
  if (deleted.length === 0) throw notFound("Workflow");
}

/**
 * Runs a write to the caller's workflows, then forgets their cached list pages, even when the write
 * failed part way (a row may have changed before the error).
 */
export async function changingWorkflows<T>(ctx: ServiceContext, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    forgetCachedWorkflows(ctx.workspace.id);
  }
}

export function presentWorkflow(row: SavedWorkflow) {
  return {
    ...(row.revealedNotifySecret ? { notify_secret: row.revealedNotifySecret } : {}),
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    version: row.version,
    is_template: row.isTemplate,
    trigger_type: row.triggerType,
    trigger_config: row.triggerConfig,
    variables: row.variables,
    workflow_metadata: row.metadata,
    settings: row.settings,
    steps: row.steps as Record<string, unknown>[],
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * A workflow saved before placeholders were strict keeps `strict_placeholders: false` when its
 * settings are replaced by ones that do not mention it: only its owner saying so makes it strict.
 */
function keptLenience(current: Record<string, unknown>, next: Record<string, unknown>): Record<string, unknown> {
  return current.strict_placeholders === false && !("strict_placeholders" in next) ? { ...next, strict_placeholders: false } : next;
}
