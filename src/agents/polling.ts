import { desc, eq } from "drizzle-orm";
import type { Runtime } from "../core/context";
import { HubError } from "../core/errors";
import { agentEvents, agents, workflows, type Agent, type Workflow } from "../db/schema";
import { startQueued } from "../executions/start-and-run";
import { skippedOrThrow } from "../executions/flow-control";
import { base64url, sha256 } from "../lib/crypto";
import { getKeys, getPath, splitPath } from "../lib/json-path";
import { loggableError } from "../lib/safe-log";
import { executeTool } from "../tools/executor";
import { eventRow, type NewAgentEvent, recordAgentEvent } from "./events";
import type { PollKeys } from "./poll-keys";
import { agentContext, agentStoppedReason, recordAgentRefusal } from "./service";
import { triggerKey } from "./trigger-keys";

/** New items started per poll; the rest wait for the next poll (DESIGN §5). */
export const MAX_STARTS_PER_POLL = 100;
/** Items read from one poll's result: bounded work per poll, whatever the tool returns. */
export const MAX_ITEMS_PER_POLL = 10_000;
/** A failing poll backs off, doubling, up to this. */
export const MAX_BACKOFF_SECONDS = 3600;
/** Keys longer than this are remembered by their hash. */
const MAX_KEY_CHARS = 200;

export interface PollConfig {
  tool: string;
  arguments?: Record<string, unknown>;
  interval_seconds: number;
  items_path: string;
  id_path: string;
  emit: "each" | "batch";
  emit_existing: boolean;
}

/** What the agent's object does next: poll again after `delaySeconds`, or stop (null). */
export interface PollOutcome {
  delaySeconds: number | null;
}

/** The poll trigger the agent should run now, or null when it should not poll at all. */
export async function pollTriggerOf(runtime: Runtime, agentId: string): Promise<{ agent: Agent; workflow: Workflow; config: PollConfig } | null> {
  const row = await runtime.db
    .select({ agent: agents, workflow: workflows })
    .from(agents)
    .innerJoin(workflows, eq(workflows.id, agents.workflowId))
    .where(eq(agents.id, agentId))
    .get();
  if (row?.agent.status !== "active" || row.workflow.triggerType !== "poll") return null;
  return { ...row, config: row.workflow.triggerConfig as unknown as PollConfig };
}

/** A trigger's fingerprint: another tool, arguments or paths read other items, so the baseline starts again. */
export async function triggerFingerprint(config: PollConfig): Promise<string> {
  return base64url(await sha256(JSON.stringify([config.tool, config.arguments ?? {}, config.items_path, config.id_path])));
}

/**
 * One poll (DESIGN §5 "Polling"): calls the trigger's tool as the agent's credential (counted
 * against the tool-call limit), reads the items at `items_path`, keys them by `id_path`, and
 * starts one run per key not seen before (or one batch run), at most MAX_STARTS_PER_POLL. The
 * first poll of a trigger only remembers what is there, unless `emit_existing`.
 *
 * Exactly once across crashes: each run's idempotency key is derived from the agent and the item's
 * key, and a key is remembered only after its run has started. A crash between the two makes the
 * next poll start it again under the same key, which finds the run already there. A batch is
 * written down before it starts, and redone first.
 */
export async function runPoll(runtime: Runtime, target: NonNullable<Awaited<ReturnType<typeof pollTriggerOf>>>, keys: PollKeys): Promise<PollOutcome> {
  const { agent, workflow, config } = target;
  const { db } = runtime;
  const log = (event: Omit<NewAgentEvent, "agentId" | "source">) => recordAgentEvent(db, { agentId: agent.id, source: "poll", ...event });
  const stopped = await agentStoppedReason(db, agent);
  if (stopped) {
    // The credential it acts with was revoked: it stays stopped until deployed again.
    await Promise.all([recordAgentRefusal(db, agent.id, stopped), log({ outcome: "error", detail: stopped })]);
    return { delaySeconds: null };
  }
  const ctx = agentContext(runtime, agent);
  const fingerprint = await triggerFingerprint(config);
  const seq = keys.beginPoll(fingerprint);

  let items: PolledItem[];
  try {
    items = await pollItems(ctx, agent.id, config);
  } catch (error) {
    return failed(runtime, agent, config, error instanceof PollFailure || error instanceof HubError ? error.message : "The poll failed unexpectedly.", error);
  }

  const allKeys = items.map((entry) => entry.key);
  if (!keys.isBaselined(fingerprint)) {
    keys.setBaseline(fingerprint, config.emit_existing ? [] : allKeys, seq);
    if (!config.emit_existing) {
      await succeeded(runtime, agent, {
        outcome: "ignored",
        detail: `First poll: ${allKeys.length} existing items remembered; new ones from now on start runs.`,
      });
      return { delaySeconds: config.interval_seconds };
    }
  }
  const fresh = new Set(keys.unseen(allKeys));
  // Still returned: kept fresh, so they are never forgotten while the feed shows them.
  keys.remember(
    allKeys.filter((key) => !fresh.has(key)),
    seq,
  );

  let detail: string | null = null;
  try {
    const started =
      config.emit === "batch"
        ? await startBatch(runtime, agent, workflow, keys, items, fresh, seq)
        : await startEach(runtime, agent, workflow, keys, items, fresh, seq);
    if (started === 0) await recordQuietPoll(runtime, agent.id);
  } catch (error) {
    // A paused workflow or a full quota: the items not started stay new for the next poll.
    if (!(error instanceof HubError)) throw error;
    detail = `New items wait for the next poll: ${error.message}`;
    await Promise.all([recordAgentRefusal(db, agent.id, detail), log({ outcome: "error", detail })]);
  }
  if (seq % 20 === 0) keys.prune(seq);
  if (!detail) await succeeded(runtime, agent, null);
  return { delaySeconds: config.interval_seconds };
}

class PollFailure extends Error {}

/** An item of the poll's result, with its key. */
interface PolledItem {
  key: string;
  item: unknown;
}

/** Calls the tool and reads its items, each with its key (items without one are skipped). */
async function pollItems(ctx: ReturnType<typeof agentContext>, agentId: string, config: PollConfig): Promise<PolledItem[]> {
  const result = await executeTool(ctx, config.tool, config.arguments ?? {}, { source: `agent:${agentId}:poll` });
  if (!result.success) throw new PollFailure(`${config.tool} failed: ${result.error_message ?? "no reason given"}`);
  const found = getPath(result.result, config.items_path);
  if (!found.found || !Array.isArray(found.value)) {
    throw new PollFailure(`items_path "${config.items_path}" did not lead to a list in the result of ${config.tool}.`);
  }
  const idKeys = splitPath(config.id_path);
  const seen = new Set<string>();
  const items: PolledItem[] = [];
  for (const item of found.value.slice(0, MAX_ITEMS_PER_POLL)) {
    const id = getKeys(item, idKeys);
    if (!id.found || id.value === null || typeof id.value === "object") continue;
    const raw = String(id.value);
    const key = raw.length > MAX_KEY_CHARS ? `sha256:${base64url(await sha256(raw))}` : raw;
    if (seen.has(key)) continue;
    seen.add(key);
    items.push({ key, item });
  }
  return items;
}

/** One run per new key, in the order returned; each key remembered once its run has started. */
async function startEach(runtime: Runtime, agent: Agent, workflow: Workflow, keys: PollKeys, items: PolledItem[], fresh: Set<string>, seq: number) {
  const ctx = agentContext(runtime, agent);
  let started = 0;
  const events: NewAgentEvent[] = [];
  try {
    for (const { key, item } of items) {
      if (!fresh.has(key) || started >= MAX_STARTS_PER_POLL) continue;
      const run = await startQueued(ctx, workflow, { input: { item }, agentId: agent.id, trigger: "poll" }, await triggerKey(agent.id, "poll", key)).catch(
        skippedOrThrow,
      );
      keys.remember([key], seq);
      // Skipped by the workflow's rate_limit (logged as such): the item is not started later.
      if (!run) continue;
      started++;
      events.push({
        agentId: agent.id,
        source: "poll",
        outcome: run.replayed ? "duplicate" : "started",
        eventId: key,
        executionId: run.execution.id,
        detail: run.replayed ? "Started by an earlier poll that was interrupted; not started again." : null,
      });
    }
  } finally {
    await recordStarts(runtime, agent.id, events);
  }
  return started;
}

/**
 * A batch's idempotency key, named by the items in it: the same items make the same batch (as one
 * item is one run with `emit: each`). Not by the poll's number and first item: the count starts
 * again with a new trigger, and its first batch would have been taken for an earlier one that
 * began with the same item, its other items never started.
 */
async function batchKey(itemKeys: string[]): Promise<string> {
  return `batch:${base64url(await sha256(JSON.stringify([...itemKeys].sort())))}`;
}

/** One run with every new item (`{items}`), at most MAX_STARTS_PER_POLL; written down first, so a crash redoes this batch. */
async function startBatch(runtime: Runtime, agent: Agent, workflow: Workflow, keys: PollKeys, items: PolledItem[], fresh: Set<string>, seq: number) {
  let batch = keys.pendingBatch();
  if (!batch) {
    const chosen = items.filter((entry) => fresh.has(entry.key)).slice(0, MAX_STARTS_PER_POLL);
    if (chosen.length === 0) return 0;
    const itemKeys = chosen.map((entry) => entry.key);
    batch = { key: await batchKey(itemKeys), itemKeys, items: chosen.map((entry) => entry.item) };
    keys.setPendingBatch(batch);
  }
  const ctx = agentContext(runtime, agent);
  const run = await startQueued(
    ctx,
    workflow,
    { input: { items: batch.items }, agentId: agent.id, trigger: "poll" },
    await triggerKey(agent.id, "poll", batch.key),
  ).catch(skippedOrThrow);
  keys.remember(batch.itemKeys, seq);
  keys.setPendingBatch(null);
  if (!run) return 0;
  await recordStarts(runtime, agent.id, [
    {
      agentId: agent.id,
      source: "poll",
      outcome: run.replayed ? "duplicate" : "started",
      eventId: batch.key,
      executionId: run.execution.id,
      detail: `${batch.items.length} new items in one run.`,
    },
  ]);
  return batch.items.length;
}

async function recordStarts(runtime: Runtime, agentId: string, events: NewAgentEvent[]) {
  if (events.length === 0) return;
  const { db } = runtime;
  const rows = events.map(eventRow);
  // D1 takes at most 100 bound parameters per statement: a few rows per insert.
  const inserts = [];
  for (let i = 0; i < rows.length; i += 10) inserts.push(db.insert(agentEvents).values(rows.slice(i, i + 10)));
  await db.batch([db.update(agents).set({ lastEventAt: new Date() }).where(eq(agents.id, agentId)), ...inserts]);
}

/**
 * Polls that find nothing new in a row share one entry in the events log (its time and count
 * move on), so an agent polling every few seconds does not bury its deliveries.
 */
async function recordQuietPoll(runtime: Runtime, agentId: string) {
  const { db } = runtime;
  const latest = await db.select().from(agentEvents).where(eq(agentEvents.agentId, agentId)).orderBy(desc(agentEvents.receivedAt)).limit(1).get();
  const quiet = /^No new items(?: in (\d+) polls)?/.exec(latest?.detail ?? "");
  if (latest && latest.source === "poll" && latest.outcome === "ignored" && quiet) {
    const polls = Number(quiet[1] ?? 1) + 1;
    await db
      .update(agentEvents)
      .set({ receivedAt: new Date(), detail: `No new items in ${polls} polls since ${sinceOf(latest.detail, latest.receivedAt)}.` })
      .where(eq(agentEvents.id, latest.id));
    return;
  }
  await recordAgentEvent(db, { agentId, source: "poll", outcome: "ignored", detail: `No new items since ${new Date().toISOString()}.` });
}

const sinceOf = (detail: string | null, fallback: Date) => / since (\S+?)\.?$/.exec(detail ?? "")?.[1] ?? fallback.toISOString();

/** A successful poll resets the back-off; `event` is logged when there is something to say. */
async function succeeded(runtime: Runtime, agent: Agent, event: Omit<NewAgentEvent, "agentId" | "source"> | null) {
  if (agent.pollFailures > 0) {
    // The poll works again: its failure is no longer the agent's last error.
    const healed = agent.lastError?.startsWith("Poll failed") ? { lastError: null } : {};
    await runtime.db
      .update(agents)
      .set({ pollFailures: 0, ...healed })
      .where(eq(agents.id, agent.id));
  }
  if (event) await recordAgentEvent(runtime.db, { agentId: agent.id, source: "poll", ...event });
}

/** A failed poll: logged, shown as `monitoring.last_error`, and the next one backs off (doubling, at most an hour). */
async function failed(runtime: Runtime, agent: Agent, config: PollConfig, reason: string, error: unknown): Promise<PollOutcome> {
  const failures = agent.pollFailures + 1;
  // Never sooner than the interval, even when the interval is longer than the back-off's cap.
  const delaySeconds = Math.max(config.interval_seconds, Math.min(MAX_BACKOFF_SECONDS, config.interval_seconds * 2 ** failures));
  if (!(error instanceof PollFailure) && !(error instanceof HubError)) {
    console.error(JSON.stringify({ level: "error", message: "poll failed unexpectedly", agent_id: agent.id, error: loggableError(error) }));
  }
  const detail = `Poll failed (${failures} in a row; next in ${delaySeconds} s): ${reason}`;
  await Promise.all([
    runtime.db.update(agents).set({ pollFailures: failures, lastError: detail, updatedAt: new Date() }).where(eq(agents.id, agent.id)),
    recordAgentEvent(runtime.db, { agentId: agent.id, source: "poll", outcome: "error", detail }),
  ]);
  return { delaySeconds };
}
