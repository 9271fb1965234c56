import type { ServiceContext } from "../core/context";
import { IsolateCache } from "../core/isolate-cache";
import { and, eq } from "drizzle-orm";
import { type Workflow, workflows } from "../db/schema";

/**
 * Workflows as this isolate last read them, kept like an account record (IsolateCache: fresh 5 s,
 * refreshed in the background up to 10 s), keyed by owner so one account's copies are never
 * another's. Every write through the workflow service forgets its owner's copies here at once
 * (`changingWorkflows`), so this isolate sees its own changes at once; another isolate's within
 * 10 s. Workflows can be large (up to 100 steps each): the weight bounds what the isolate holds.
 */
// Parsed objects take a few times their JSON's length in memory: 4 M characters of JSON per cache.
const limits = { maxEntries: 5_000, maxWeight: 4 * 1024 * 1024, weigh: (value: unknown) => JSON.stringify(value ?? null).length };

/**
 * The first page of each caller's workflow list: lists are read far more often than workflows
 * change, and a D1 read was most of what a list cost. Later pages (with a cursor) are always read.
 */
const firstPages = new IsolateCache<unknown[]>(limits);

/**
 * Single workflows, for starting a run whose insert is deferred (see deferred-start.ts): that
 * insert copies the workflow only if it is still the version cached here, so a stale copy can
 * never run, only cost a second start.
 */
const workflowCopies = new IsolateCache<Workflow | null>(limits);

/** The caller's newest `limit` workflows, from this isolate's page or read through `load`. */
export function firstPageOfWorkflows(ctx: ServiceContext, limit: number, load: () => Promise<Workflow[]>): Promise<Workflow[]> {
  return firstPages.get(`${ctx.workspace.id}:${limit}`, load, (work) => ctx.waitUntil(work)) as Promise<Workflow[]>;
}

/** The same for lists that show a few fields of each workflow (see `listWorkflowSummaries`). */
export function firstPageOfSummaries<T>(ctx: ServiceContext, limit: number, load: () => Promise<T[]>): Promise<T[]> {
  return firstPages.get(`${ctx.workspace.id}:summaries:${limit}`, load, (work) => ctx.waitUntil(work)) as Promise<T[]>;
}

/** One of the caller's workflows (null: none with this id), from this isolate's copy or read through `load`. */
export function copyOfWorkflow(ctx: ServiceContext, id: number, load: () => Promise<Workflow | null>): Promise<Workflow | null> {
  return workflowCopies.get(`${ctx.workspace.id}:${id}`, load, (work) => ctx.waitUntil(work));
}

/** Forgets an owner's cached pages and copies: call after any write to their workflows. */
/** The caller's own workflow `id` as this isolate last read it (null: not theirs, or gone). */
export function ownWorkflowCopy(ctx: ServiceContext, id: number): Promise<Workflow | null> {
  return copyOfWorkflow(ctx, id, async () => {
    const row = await ctx.db
      .select()
      .from(workflows)
      .where(and(eq(workflows.id, id), eq(workflows.userId, ctx.workspace.id)))
      .get();
    return row ?? null;
  });
}

export function forgetCachedWorkflows(userId: number) {
  const prefix = `${userId}:`;
  firstPages.forget((key) => key.startsWith(prefix));
  workflowCopies.forget((key) => key.startsWith(prefix));
}
