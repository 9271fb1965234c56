import { and, desc, eq, lt, lte, or, sql } from "drizzle-orm";
import { z } from "@hono/zod-openapi";
import type { ServiceContext } from "../core/context";
import { HubError, notFound } from "../core/errors";
import { approvals, type Approval } from "../db/schema";
import { decodeCursor, encodeCursor } from "../http/pagination";
import { randomToken } from "../lib/crypto";
import { prepareToolCall } from "../tools/executor";
import { announceApproval, settleAnnouncements } from "./channels";
import type { NotifyChannel } from "./channels/schema";
import { type ApprovalStatus, type ApprovalView, presentApproval, statusAt } from "./present";
import { wakeWaiter } from "./waiters";
import { auditStatement } from "../workspaces/audit";

export interface ApprovalRequest {
  tool: string;
  arguments: Record<string, unknown>;
  effect: string;
  rule: Record<string, unknown>;
  toolCallId?: string;
  conversationId?: number;
  executionId?: string;
  stepId?: string;
  agentId?: string | null;
  ttlSeconds: number;
  notify: NotifyChannel[];
  /** The hub's origin as the asking request reached it: the email link's base when PUBLIC_URL is not set. */
  origin?: string;
}

/**
 * Stores a pending approval and tells the channels (each in the background: a slow Slack must not
 * hold the turn, and a failed notice leaves the approval decidable from the API and dashboard).
 */
export async function requestApproval(ctx: ServiceContext, request: ApprovalRequest): Promise<ApprovalView> {
  const [row] = await ctx.db
    .insert(approvals)
    .values({
      id: `apr_${randomToken(12)}`,
      userId: ctx.workspace.id,
      tool: request.tool,
      arguments: request.arguments,
      effect: request.effect,
      rule: request.rule,
      toolCallId: request.toolCallId ?? null,
      conversationId: request.conversationId ?? null,
      executionId: request.executionId ?? null,
      stepId: request.stepId ?? null,
      agentId: request.agentId ?? null,
      notify: request.notify,
      expiresAt: new Date(Date.now() + request.ttlSeconds * 1000),
    })
    .returning();
  const approval = presentApproval(row!);
  if (request.notify.length > 0) ctx.waitUntil(announceApproval(ctx, row!, request.notify, { origin: request.origin }));
  return approval;
}

/** Records which stored message waits on these approvals (it is stored after they are asked for). */
export async function attachMessage(ctx: ServiceContext, ids: string[], messageId: number): Promise<void> {
  if (ids.length === 0) return;
  await ctx.db
    .update(approvals)
    .set({ messageId })
    .where(and(eq(approvals.userId, ctx.workspace.id), sql`${approvals.id} in ${ids}`));
}

export async function getApproval(ctx: ServiceContext, id: string): Promise<ApprovalView> {
  return presentApproval(await ownedRow(ctx, id));
}

/** Several of the caller's approvals by id (a turn looking at its round's), in the order asked. */
export async function approvalsByIds(ctx: ServiceContext, ids: string[]): Promise<ApprovalView[]> {
  if (ids.length === 0) return [];
  const rows = await ctx.db
    .select()
    .from(approvals)
    .where(and(eq(approvals.userId, ctx.workspace.id), sql`${approvals.id} in ${ids}`));
  const byId = new Map(rows.map((row) => [row.id, presentApproval(row)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

const ListCursor = z.object({ t: z.number().int(), id: z.string() });

/** Newest first; `status` filters (an overdue pending one lists as expired, not pending). */
export async function listApprovals(
  ctx: ServiceContext,
  query: { status?: ApprovalStatus; limit: number; cursor?: string },
): Promise<{ data: ApprovalView[]; next_cursor: string | null }> {
  const after = decodeCursor(query.cursor, ListCursor);
  const now = new Date();
  const byStatus =
    query.status === "pending"
      ? and(eq(approvals.status, "pending"), sql`${approvals.expiresAt} > ${now.getTime()}`)
      : query.status === "expired"
        ? or(eq(approvals.status, "expired"), and(eq(approvals.status, "pending"), lte(approvals.expiresAt, now)))
        : query.status
          ? eq(approvals.status, query.status)
          : undefined;
  const rows = await ctx.db
    .select()
    .from(approvals)
    .where(
      and(
        eq(approvals.userId, ctx.workspace.id),
        byStatus,
        after ? or(lt(approvals.requestedAt, new Date(after.t)), and(eq(approvals.requestedAt, new Date(after.t)), lt(approvals.id, after.id))) : undefined,
      ),
    )
    .orderBy(desc(approvals.requestedAt), desc(approvals.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    data: page.map((row) => presentApproval(row, now.getTime())),
    next_cursor: rows.length > query.limit && last ? encodeCursor({ t: last.requestedAt.getTime(), id: last.id }) : null,
  };
}

export interface Decision {
  decision: "approve" | "deny";
  arguments?: Record<string, unknown>;
  note?: string;
}

/**
 * Decides a pending approval once: edited arguments are checked against the tool's input schema
 * first (422), and the update only lands on a row still pending and not past its expiry, so two
 * deciders racing (the API, a Slack click, an email link) get one 200 and one 409. Then whatever
 * waits on it is woken and the channels' messages say who decided what.
 */
export async function decideApproval(ctx: ServiceContext, id: string, decision: Decision, decidedBy: string): Promise<ApprovalView> {
  const row = await ownedRow(ctx, id);
  refuseIfDecided(row);
  let args = row.arguments;
  if (decision.decision === "approve" && decision.arguments) {
    // Validated as the call will be (and refused the same way), before anything is stored.
    await prepareToolCall(ctx, row.tool, decision.arguments, { charge: false }).catch((error) => {
      throw error instanceof HubError && error.code === "validation_failed"
        ? new HubError("validation_failed", `The edited arguments do not fit ${row.tool}'s input schema.`, { errors: error.errors })
        : error;
    });
    // Stored as the person wrote them (the call fills in its defaults again when it runs).
    args = decision.arguments;
  }
  const now = new Date();
  const update = ctx.db
    .update(approvals)
    .set({
      status: decision.decision === "approve" ? "approved" : "denied",
      arguments: args,
      decidedAt: now,
      decidedBy,
      note: decision.note ?? null,
      // The email link dies with the approval.
      linkTokenHash: null,
    })
    .where(and(eq(approvals.id, id), eq(approvals.userId, ctx.workspace.id), eq(approvals.status, "pending"), sql`${approvals.expiresAt} > ${now.getTime()}`))
    .returning();
  // Recorded only if this decision landed (of two racing deciders, the one that did). From a
  // Slack button or an email link the actor is the workspace: `decided_by` says who clicked.
  const audit = auditStatement(
    ctx,
    {
      action: "approval.decided",
      target: { type: "approval", id },
      detail: { decision: decision.decision, tool: row.tool, decided_by: decidedBy, ...(args !== row.arguments ? { arguments_edited: true } : {}) },
    },
    sql`changes() = 1`,
  );
  const [[decided]] = await ctx.db.batch([update, audit]);
  if (!decided) refuseIfDecided(await ownedRow(ctx, id), true);
  return settled(ctx, decided!);
}

/**
 * Writes down the expiry of the caller's pending approvals that are past it (of one conversation,
 * or all), and wakes what waits on each. Answers the ones it expired.
 */
export async function expireDue(ctx: ServiceContext, scope: { conversationId?: number } = {}): Promise<ApprovalView[]> {
  const now = new Date();
  const rows = await ctx.db
    .update(approvals)
    .set({ status: "expired", decidedAt: sql`${approvals.expiresAt}`, linkTokenHash: null, note: "Expired before anyone decided." })
    .where(
      and(
        eq(approvals.userId, ctx.workspace.id),
        eq(approvals.status, "pending"),
        lte(approvals.expiresAt, now),
        scope.conversationId !== undefined ? eq(approvals.conversationId, scope.conversationId) : undefined,
      ),
    )
    .returning();
  return Promise.all(rows.map((row) => settled(ctx, row, { wake: scope.conversationId === undefined })));
}

/**
 * Denies pending approvals nothing waits on any more (their turn was stopped or failed in the
 * round that asked): deciding them later would run nothing, so they are closed with `note`.
 */
export async function withdrawApprovals(ctx: ServiceContext, ids: string[], note: string): Promise<void> {
  if (ids.length === 0) return;
  const rows = await ctx.db
    .update(approvals)
    .set({ status: "denied", decidedAt: new Date(), note, linkTokenHash: null })
    .where(and(eq(approvals.userId, ctx.workspace.id), eq(approvals.status, "pending"), sql`${approvals.id} in ${ids}`))
    .returning();
  for (const row of rows) if (row.notify.length > 0) ctx.waitUntil(settleAnnouncements(ctx, row));
}

/** After a decision: the channels' messages are updated (in the background) and the waiter woken. */
async function settled(ctx: ServiceContext, row: Approval, options: { wake?: boolean } = {}): Promise<ApprovalView> {
  const view = presentApproval(row);
  if (row.notify.length > 0) ctx.waitUntil(settleAnnouncements(ctx, row));
  if (options.wake !== false) await wakeWaiter(ctx, view);
  return view;
}

async function ownedRow(ctx: ServiceContext, id: string): Promise<Approval> {
  const row = await ctx.db
    .select()
    .from(approvals)
    .where(and(eq(approvals.id, id), eq(approvals.userId, ctx.workspace.id)))
    .get();
  if (!row) throw notFound("Approval");
  return row;
}

function refuseIfDecided(row: Approval, raced = false): void {
  const status = statusAt(row);
  if (status === "pending" && !raced) return;
  throw new HubError(
    "conflict",
    status === "expired"
      ? `Approval ${row.id} expired at ${row.expiresAt.toISOString()}; it can no longer be decided.`
      : `Approval ${row.id} was already ${status}${row.decidedBy ? ` by ${row.decidedBy}` : ""}.`,
  );
}
