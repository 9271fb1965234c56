import type { Bindings } from "../core/context";
import { loggableError } from "../lib/safe-log";
import type { ApprovalView } from "./present";

/** What a conversation's Durable Object answers to when one of its approvals is decided. */
interface ApprovalWaiter {
  approvalDecided(approval: ApprovalView): Promise<void>;
}

/**
 * Tells whatever waits on the approval that it was decided: the conversation whose turn asked
 * (its object goes on with the turn once every approval of the round is decided). Addressed
 * through the binding, not the conversations folder, which itself asks for approvals. A failure
 * is logged, not thrown: the decision is stored, and the conversation looks again when it wakes
 * (its alarm, or its next start).
 */
export async function wakeWaiter(bindings: Pick<Bindings, "CONVERSATIONS">, approval: ApprovalView): Promise<void> {
  if (approval.conversation_id === undefined) return;
  const namespace = bindings.CONVERSATIONS;
  const stub = namespace.get(namespace.idFromName(`conversation:${approval.conversation_id}`)) as unknown as ApprovalWaiter;
  await stub
    .approvalDecided(approval)
    .catch((error) =>
      console.error(JSON.stringify({ level: "error", message: "approval waiter not reached", approval_id: approval.id, error: loggableError(error) })),
    );
}
