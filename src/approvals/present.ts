import type { Approval } from "../db/schema";
import { iso } from "../http/schemas";

export type ApprovalStatus = Approval["status"];

/** An approval as the API, the event stream and the channels show it (DESIGN §6.2). */
export interface ApprovalView {
  id: string;
  status: ApprovalStatus;
  tool: string;
  arguments: Record<string, unknown>;
  effect: string;
  rule: Record<string, unknown>;
  /** The model's id for the call (as in tool_started and tools_called). */
  tool_call_id?: string;
  conversation_id?: number;
  message_id?: number;
  execution_id?: string;
  step_id?: string;
  agent_id?: string;
  requested_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  note: string | null;
}

/**
 * Its status as of `now`: a pending approval past its expiry is expired, whether or not the sweep
 * that writes so has run yet (it can no longer be decided either way).
 */
export function statusAt(row: Pick<Approval, "status" | "expiresAt">, now = Date.now()): ApprovalStatus {
  return row.status === "pending" && row.expiresAt.getTime() <= now ? "expired" : row.status;
}

export function presentApproval(row: Approval, now = Date.now()): ApprovalView {
  const expired = statusAt(row, now) === "expired" && row.status === "pending";
  return {
    id: row.id,
    status: statusAt(row, now),
    tool: row.tool,
    arguments: row.arguments,
    effect: row.effect,
    rule: row.rule,
    ...(row.toolCallId !== null ? { tool_call_id: row.toolCallId } : {}),
    ...(row.conversationId !== null ? { conversation_id: row.conversationId } : {}),
    ...(row.messageId !== null ? { message_id: row.messageId } : {}),
    ...(row.executionId !== null ? { execution_id: row.executionId } : {}),
    ...(row.stepId !== null ? { step_id: row.stepId } : {}),
    ...(row.agentId !== null ? { agent_id: row.agentId } : {}),
    requested_at: row.requestedAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    // An expiry not yet written down happened at expires_at, decided by no one.
    decided_at: expired ? row.expiresAt.toISOString() : iso(row.decidedAt),
    decided_by: row.decidedBy,
    note: row.note,
  };
}
