import type { ServiceContext } from "../core/context";
import { and, desc, eq, lt } from "drizzle-orm";
import type { Db } from "../db/client";
import { auditLogs, type AuditLog } from "../db/schema";
import { redactArguments } from "./redact";

export interface AuditEntry {
  userId: number;
  credentialId: string;
  callId: string;
  tool: string;
  connectionId: number | null;
  arguments: unknown;
  outcome: "success" | "error";
  errorMessage: string | null;
  durationMs: number;
  source: string;
}

export async function writeAudit(db: Db, entry: AuditEntry): Promise<void> {
  await db.insert(auditLogs).values({ ...entry, arguments: redactArguments(entry.arguments) });
}

export function listAudit(ctx: ServiceContext, limit: number, beforeId?: number): Promise<AuditLog[]> {
  return ctx.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.userId, ctx.user.id), beforeId ? lt(auditLogs.id, beforeId) : undefined))
    .orderBy(desc(auditLogs.id))
    .limit(limit)
    .all();
}

export function presentAudit(row: AuditLog) {
  return {
    id: row.id,
    call_id: row.callId,
    tool: row.tool,
    connection_id: row.connectionId,
    credential_id: row.credentialId,
    source: row.source,
    arguments: row.arguments,
    outcome: row.outcome,
    error_message: row.errorMessage,
    duration_ms: row.durationMs,
    created_at: row.createdAt.toISOString(),
  };
}
