import { and, eq } from "drizzle-orm";
import type { Runtime } from "../../core/context";
import { agents, workflows, type Approval } from "../../db/schema";
import { statusAt } from "../present";

/** What every channel says of an approval: who asks, and the call, in words a person reads. */
export interface ApprovalAbout {
  /** "Agent “Weekly digest”", or "An agent" when the approval names none (or it is gone). */
  agent: string;
}

/** The agent's name is its workflow's (as the API presents agents). */
export async function aboutApproval(ctx: Pick<Runtime, "db">, approval: Approval): Promise<ApprovalAbout> {
  if (!approval.agentId) return { agent: "An agent" };
  const row = await ctx.db
    .select({ name: workflows.name })
    .from(agents)
    .innerJoin(workflows, eq(workflows.id, agents.workflowId))
    .where(and(eq(agents.id, approval.agentId), eq(agents.userId, approval.userId)))
    .get();
  return { agent: row ? `Agent “${row.name.slice(0, 200)}”` : `Agent ${approval.agentId}` };
}

/** The call's arguments as indented JSON, cut at `max` characters (a message has room for a glance, the API has the rest). */
export function argumentsText(args: Record<string, unknown>, max: number): string {
  const full = JSON.stringify(args, null, 2) ?? "{}";
  return full.length > max ? `${full.slice(0, max)}\n… (cut here; the API and the dashboard show the whole call)` : full;
}

/** "approved by <who>", "denied by <who>: <note>", "expired": the outcome in a few words, `who` rendered by the channel. */
export function outcomeText(approval: Approval, who: (decidedBy: string) => string): string {
  const status = statusAt(approval);
  if (status === "pending") return "Waiting for a decision.";
  if (status === "expired") return "Expired: nobody decided in time, so the call was not run.";
  const by = approval.decidedBy ? ` by ${who(approval.decidedBy)}` : "";
  const note = approval.note ? `: ${approval.note.slice(0, 500).trim()}` : "";
  const sentence = `${status === "approved" ? "Approved" : "Denied"}${by}${note}`;
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** decided_by as a person reads it outside Slack: `user:7` is someone signed in to the hub. */
export function plainDecider(decidedBy: string): string {
  const [kind, ...rest] = decidedBy.split(":");
  const who = rest.join(":");
  if (kind === "email") return who;
  if (kind === "slack") return `Slack user ${who}`;
  if (kind === "user") return "the account's owner in the hub";
  return decidedBy;
}
