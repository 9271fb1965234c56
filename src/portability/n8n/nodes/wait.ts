import { isExpression, splitTemplate, templateAsJs } from "../expressions";
import type { NodeContext, NodeResult } from "../types";

const SECONDS: Record<string, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 };

/** Wait → a `delay` step: "after a time interval" or "at a specified time"; waits for a webhook or form are not taken over. */
export function waitNode(ctx: NodeContext): NodeResult | null {
  const p = ctx.node.parameters ?? {};
  const resume = p.resume ?? "timeInterval";
  const js = (raw: unknown) => (isExpression(raw) ? templateAsJs(splitTemplate(raw.slice(1))) : JSON.stringify(raw));
  let seconds: number | string;
  if (resume === "timeInterval") {
    const factor = SECONDS[String(p.unit ?? ((ctx.node.typeVersion ?? 1) >= 1.1 ? "seconds" : "hours"))] ?? 1;
    const amount = p.amount ?? 1;
    seconds = isExpression(amount) ? ctx.computed(`Number(${js(amount)}) * ${factor}`) : Number(amount) * factor;
  } else if (resume === "specificTime") {
    seconds = ctx.computed(`Math.max(0, Math.round((Date.parse(${js(p.dateTime)}) - Date.parse(input.now)) / 1000))`);
  } else {
    ctx.warn(`Waiting for a ${String(resume)} call is not taken over: the hub's wait_for_event step takes events through its own API.`);
    return null;
  }
  return { steps: [{ id: ctx.stepId, type: "delay", name: ctx.node.name, seconds }] };
}
