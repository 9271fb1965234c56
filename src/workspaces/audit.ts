import { and, desc, eq, inArray, is, lt, SQL, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import type { Db } from "../db/client";
import { users, workspaceAudit } from "../db/schema";

/** What the audit trail records (DESIGN §6.4). */
export type AuditAction =
  | "workspace.created"
  | "workspace.updated"
  | "member.added"
  | "member.role_changed"
  | "member.removed"
  | "workflow.created"
  | "workflow.updated"
  | "workflow.deleted"
  | "agent.created"
  | "agent.updated"
  | "agent.deleted"
  | "connection.created"
  | "connection.updated"
  | "connection.deleted"
  | "approval.decided"
  | "api_key.created"
  | "api_key.revoked";

export interface AuditEntry {
  action: AuditAction;
  target: { type: string; id: string | number | SQL };
  /**
   * A few facts about the change (names, roles, a decision), never a secret. SQL giving a JSON
   * object reads them in the batch (the name of a row the batch deletes next).
   */
  detail?: Record<string, unknown> | SQL;
  /** The workspace the change happened in; by default the one the caller acts in. */
  workspaceId?: number | SQL;
}

/**
 * The statement that records one change, for the caller to run in the same `db.batch` as the
 * change itself, so the trail holds exactly what happened. `onlyIf` makes the record conditional
 * on the change having landed (a row the batch inserted, which a quota may have taken back). The
 * actor's email is copied in (the record outlives the account); work a workspace does on its own
 * (an approval decided from a Slack button) has no person, so no email.
 */
export function auditStatement(ctx: Pick<ServiceContext, "db" | "workspace" | "actor">, entry: AuditEntry, onlyIf?: SQL) {
  const actorId = ctx.actor.id;
  const targetId = typeof entry.target.id === "object" ? entry.target.id : String(entry.target.id);
  // A raw SELECT gives every column of the table, in order (drizzle's insert-select of SQL).
  return ctx.db.insert(workspaceAudit).select(
    sql`SELECT NULL, ${entry.workspaceId ?? ctx.workspace.id}, (unixepoch('subsec') * 1000), ${actorId},
      (SELECT ${users.email} FROM ${users} WHERE ${users.id} = ${actorId} AND ${users.kind} = 'person'),
      ${entry.action}, ${entry.target.type}, ${targetId}, ${is(entry.detail, SQL) ? entry.detail : JSON.stringify(entry.detail ?? {})}
    WHERE ${onlyIf ?? sql`1`}`,
  );
}

export const AUDIT_PAGE_SIZE = 50;

/** A workspace's trail, newest first, `AUDIT_PAGE_SIZE` at a time; the cursor is the last id seen. */
export async function readAudit(db: Db, workspaceId: number, before?: number) {
  const rows = await db
    .select()
    .from(workspaceAudit)
    .where(and(eq(workspaceAudit.workspaceId, workspaceId), before ? lt(workspaceAudit.id, before) : undefined))
    .orderBy(desc(workspaceAudit.id))
    .limit(AUDIT_PAGE_SIZE + 1)
    .all();
  const page = rows.slice(0, AUDIT_PAGE_SIZE);
  return {
    data: page.map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      actor: { user_id: row.actorUserId === workspaceId && !row.actorEmail ? null : row.actorUserId, email: row.actorEmail },
      action: row.action,
      target: { type: row.targetType, id: row.targetId },
      detail: JSON.parse(row.detail) as Record<string, unknown>,
    })),
    next_cursor: rows.length > AUDIT_PAGE_SIZE ? String(page.at(-1)!.id) : null,
  };
}

/** How long the trail keeps a record: a year, then the every-minute cron forgets it. */
export const AUDIT_RETENTION_DAYS = 365;
const AUDIT_SWEEP_BATCH = 1000;

/** Forgets audit records older than AUDIT_RETENTION_DAYS, at most a batch per sweep (bounded work). */
export async function forgetOldAuditRecords(db: Db, now = Date.now()): Promise<number> {
  const old = db
    .select({ id: workspaceAudit.id })
    .from(workspaceAudit)
    .where(lt(workspaceAudit.at, new Date(now - AUDIT_RETENTION_DAYS * 86_400_000)))
    .limit(AUDIT_SWEEP_BATCH);
  const removed = await db.delete(workspaceAudit).where(inArray(workspaceAudit.id, old)).returning({ id: workspaceAudit.id });
  return removed.length;
}
