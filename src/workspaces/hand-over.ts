import { and, eq, inArray, or, sql } from "drizzle-orm";
import { WORKSPACE_CREDENTIAL } from "../core/context";
import type { Db } from "../db/client";
import { agents, apiKeys, executions, grants } from "../db/schema";

/**
 * When a member leaves, the work they set going in the workspace stops depending on them: agents
 * they deployed, and runs still under way that they started, were acting with one of their
 * credentials (which a revocation would stop). They now act as the workspace itself, whose
 * credential lasts as long as the workspace. Statements for the batch that removes the member.
 */
export function handOverWork(db: Db, workspaceId: number, memberId: number) {
  const theirs = (column: typeof agents.credentialId | typeof executions.credentialId) =>
    or(
      inArray(
        column,
        db
          .select({ id: sql<string>`'key_' || ${apiKeys.id}` })
          .from(apiKeys)
          .where(eq(apiKeys.userId, memberId)),
      ),
      inArray(column, db.select({ id: grants.id }).from(grants).where(eq(grants.userId, memberId))),
    );
  return [
    db
      .update(agents)
      .set({ credentialId: WORKSPACE_CREDENTIAL })
      .where(and(eq(agents.userId, workspaceId), theirs(agents.credentialId))),
    db
      .update(executions)
      .set({ credentialId: WORKSPACE_CREDENTIAL })
      .where(and(eq(executions.userId, workspaceId), inArray(executions.status, ["queued", "running", "waiting"]), theirs(executions.credentialId))),
  ] as const;
}
