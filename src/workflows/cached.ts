import type { ServiceContext } from "../core/context";
import { IsolateCache } from "../core/isolate-cache";
import type { Workflow } from "../db/schema";

/**
 * The first page of each caller's workflow list as this isolate last read it, kept like an
 * account record (IsolateCache: fresh 5 s, refreshed in the background up to 10 s). Lists are read
 * far more often than workflows change, and a D1 read was most of what a list cost. Every write
 * through the workflow service forgets its owner's pages here at once, so this isolate lists its
 * own changes exactly; another isolate's change shows within 10 s. Reading one workflow by id
 * always reads D1, so it is exact everywhere. Later pages (with a cursor) are always read.
 */
const firstPages = new IsolateCache<Workflow[]>({
  maxEntries: 5_000,
  // Workflows can be large (up to 100 steps each); this bounds what the isolate holds for lists.
  maxWeight: 16 * 1024 * 1024,
  weigh: (rows) => JSON.stringify(rows).length,
});

/** The caller's newest `limit` workflows, from this isolate's page or read through `load`. */
export function firstPageOfWorkflows(ctx: ServiceContext, limit: number, load: () => Promise<Workflow[]>): Promise<Workflow[]> {
  return firstPages.get(`${ctx.user.id}:${limit}`, load, (work) => ctx.waitUntil(work));
}

/** Forgets an owner's cached pages: call after any write to their workflows. */
export function forgetWorkflowPages(userId: number) {
  const prefix = `${userId}:`;
  firstPages.forget((key) => key.startsWith(prefix));
}
