import { RUN_INPUT } from "../items";
import type { NodeContext, NodeResult } from "../types";

const num = (value: unknown, fallback: number) => (typeof value === "number" && Number.isFinite(value) ? value : fallback);

/** Manual Trigger, the old Start node and Execute Workflow Trigger: started by hand or by a caller, with the run's input as the item. */
export function manualTrigger(): NodeResult {
  return { steps: [], trigger: { type: "manual", config: {} }, output: RUN_INPUT };
}

/**
 * Webhook: the hub's webhook trigger. The request body is the run's input, so `$json.body.x` is
 * `input.x`; headers and query parameters are not kept. The deployed agent's URL replaces n8n's
 * path, and callers sign their deliveries (or send the agent's token, for n8n's header auth).
 */
export function webhookTrigger(ctx: NodeContext): NodeResult {
  const p = ctx.node.parameters ?? {};
  const verify = p.authentication === "headerAuth" ? "token" : "hub";
  ctx.warn(
    `n8n's path "${String(p.path ?? "")}" is not kept: deliveries go to the deployed agent's webhook_url (POST, JSON body), ` +
      (verify === "token" ? "with the agent's secret as a bearer token." : "signed with the agent's webhook secret."),
  );
  if (p.responseMode === "responseNode" || p.responseMode === "lastNode")
    ctx.warn("The hub answers a delivery with the run's id, not with the workflow's data.");
  return {
    steps: [],
    trigger: { type: "webhook", config: { verify } },
    output: [{ base: "input", aliases: { body: "input", headers: null, query: null, params: null } }],
  };
}

/** Schedule Trigger (rule.interval[0]) → a cron or interval schedule; `$json.timestamp` is the run's start. */
export function scheduleTrigger(ctx: NodeContext): NodeResult {
  const rules = ((ctx.node.parameters?.rule as { interval?: Record<string, unknown>[] })?.interval ?? [{ field: "days" }]) as Record<string, unknown>[];
  if (rules.length > 1) ctx.warn(`Only the first of its ${rules.length} schedule rules is kept.`);
  const rule = rules[0] ?? { field: "days" };
  const timezone = ctx.timezone ?? "UTC";
  const minute = num(rule.triggerAtMinute, 0);
  const hour = num(rule.triggerAtHour, 0);
  const every = (n: number) => (n > 1 ? `*/${n}` : "*");
  const cron = (expression: string) => ({ type: "cron", cron_expression: expression, timezone });
  let config: Record<string, unknown>;
  switch (rule.field ?? "days") {
    case "seconds":
      config = { type: "interval", interval_seconds: num(rule.secondsInterval, 30) };
      break;
    case "minutes":
      config = { type: "interval", interval_seconds: 60 * num(rule.minutesInterval, 5) };
      break;
    case "hours":
      config = cron(`${minute} ${every(num(rule.hoursInterval, 1))} * * *`);
      break;
    case "weeks": {
      const days = Array.isArray(rule.triggerAtDay) && rule.triggerAtDay.length ? rule.triggerAtDay.join(",") : "0";
      if (num(rule.weeksInterval, 1) > 1) ctx.warn("Every few weeks is not kept: it runs every week on those days.");
      config = cron(`${minute} ${hour} * * ${days}`);
      break;
    }
    case "months":
      config = cron(`${minute} ${hour} ${num(rule.triggerAtDayOfMonth, 1)} ${every(num(rule.monthsInterval, 1))} *`);
      break;
    case "cronExpression": {
      const fields = String(rule.expression ?? "")
        .trim()
        .split(/\s+/);
      // n8n takes an optional leading seconds field; the hub's cron has minutes first.
      if (fields.length === 6) {
        if (fields[0] !== "0") ctx.warn("Cron seconds are not kept: it runs at the start of the minute.");
        fields.shift();
      }
      config = cron(fields.join(" "));
      break;
    }
    default:
      config = cron(`${minute} ${hour} ${every(num(rule.daysInterval, 1))} * *`);
  }
  return {
    steps: [],
    trigger: { type: "schedule", config },
    output: [{ base: "execution", aliases: { timestamp: "execution.started_at" } }],
  };
}

/** The older Interval trigger: {interval, unit}. */
export function intervalTrigger(ctx: NodeContext): NodeResult {
  const p = ctx.node.parameters ?? {};
  const unit = p.unit === "hours" ? 3600 : p.unit === "minutes" ? 60 : 1;
  return { steps: [], trigger: { type: "schedule", config: { type: "interval", interval_seconds: num(p.interval, 1) * unit } }, output: [] };
}
