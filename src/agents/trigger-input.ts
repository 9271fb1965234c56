import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { HubError, notFound } from "../core/errors";
import { agents, workflows } from "../db/schema";
import { randomToken } from "../lib/crypto";

/** What a caller may hand an agent in place of its trigger: a webhook's event, or a polled item. */
export interface TriggerStandIn {
  event?: unknown;
  event_type?: string;
  item?: unknown;
}

const invalid = (field: string, message: string) => new HubError("validation_failed", message, { errors: [{ location: "arguments", field, message }] });

/**
 * The input a run started by hand gets when it stands in for the agent's trigger, shaped as the
 * trigger itself would shape it: a provider webhook's `{event, event_id, event_type,
 * received_at}` (the hub scheme's: the event itself), a poll's `{item}` or, in batch mode,
 * `{items: [item]}`. So a person (or an MCP client) can try an agent with a sample event.
 */
export async function triggerShapedInput(ctx: ServiceContext, agentId: string, standIn: TriggerStandIn): Promise<Record<string, unknown>> {
  const row = await ctx.db
    .select({ type: workflows.triggerType, config: workflows.triggerConfig })
    .from(agents)
    .innerJoin(workflows, eq(workflows.id, agents.workflowId))
    .where(and(eq(agents.id, agentId), eq(agents.userId, ctx.workspace.id)))
    .get();
  if (!row) throw notFound("Agent");
  if (standIn.event !== undefined) {
    if (row.type !== "webhook") throw invalid("event", `The agent's trigger is ${row.type}, not a webhook: give "input" (or "item" for a poll).`);
    const verify = typeof row.config.verify === "string" ? row.config.verify : "hub";
    if (verify === "hub") {
      if (!standIn.event || typeof standIn.event !== "object" || Array.isArray(standIn.event)) throw invalid("event", "A hub-scheme event is a JSON object.");
      return standIn.event as Record<string, unknown>;
    }
    return { event: standIn.event, event_id: `manual_${randomToken(9)}`, event_type: standIn.event_type ?? null, received_at: new Date().toISOString() };
  }
  if (standIn.item !== undefined) {
    if (row.type !== "poll") throw invalid("item", `The agent's trigger is ${row.type}, not a poll: give "input" (or "event" for a webhook).`);
    return row.config.emit === "batch" ? { items: [standIn.item] } : { item: standIn.item };
  }
  return {};
}
