import { eq } from "drizzle-orm";
import { delegatedContext, type Runtime } from "../core/context";
import { approvals, type Approval } from "../db/schema";
import { constantTimeEqual } from "../lib/crypto";
import { type ApprovalAbout, aboutApproval } from "./channels/describe";
import { tokenHashes } from "./channels/link-tokens";
import { entriesOf } from "./channels/state";
import { type ApprovalView, presentApproval, statusAt } from "./present";
import { type Decision, decideApproval } from "./service";

/** A link that still decides: its approval pending and not past its expiry, and the address it was sent to. */
export interface LiveLink {
  approval: ApprovalView;
  recipient: string;
  about: ApprovalAbout;
  row: Approval;
}

/** What an email link decides, or undefined: a malformed, unknown, used or expired link, all alike. */
export async function liveLink(runtime: Pick<Runtime, "db">, token: string): Promise<LiveLink | undefined> {
  const hashes = await tokenHashes(token);
  if (!hashes) return undefined;
  const row = await runtime.db.select().from(approvals).where(eq(approvals.linkTokenHash, hashes.lookupHash)).get();
  if (!row || statusAt(row) !== "pending") return undefined;
  const entry = entriesOf(row.notify).find((e) => e.via === "email" && e.recipient_hash !== undefined && constantTimeEqual(e.recipient_hash, hashes.ownHash));
  if (entry?.via !== "email") return undefined;
  return { approval: presentApproval(row), recipient: entry.to, about: await aboutApproval(runtime, row), row };
}

/**
 * Decides through a link, as the approval's owner, recorded as decided by `email:<address>`.
 * Undefined when the link no longer decides; a decision that loses a race throws the service's 409.
 */
export async function decideByLink(runtime: Runtime, token: string, decision: Pick<Decision, "decision" | "note">): Promise<ApprovalView | undefined> {
  const link = await liveLink(runtime, token);
  if (!link) return undefined;
  const ctx = delegatedContext(runtime, link.row.userId, `approval_link:${link.row.id}`);
  return decideApproval(ctx, link.row.id, { decision: decision.decision, ...(decision.note ? { note: decision.note } : {}) }, `email:${link.recipient}`);
}
