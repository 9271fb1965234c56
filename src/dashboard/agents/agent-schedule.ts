import { parseCronExpression } from "cron-schedule";
import type { ScheduleConfig } from "../../agents/automation-agent";
import { NEVER_FIRES_MESSAGE, firstCronInstant, isTimeZone } from "../../lib/cron-time";
import { str } from "../kit";

/** What the schedule part of a form holds, as typed (kept when the form is shown again). */
export interface ScheduleFields {
  type: "none" | "interval" | "cron";
  interval: string;
  cron: string;
  timezone: string;
}

export type ScheduleField = "interval_seconds" | "cron_expression" | "timezone" | "schedule_type";

export type ParsedSchedule = { ok: true; config: ScheduleConfig | null } | { ok: false; field: ScheduleField; message: string };

/** The REST API's bound on intervals (one year). */
export const MAX_INTERVAL_SECONDS = 31_536_000;
export const PREVIEW_COUNT = 5;

export const NO_SCHEDULE: ScheduleFields = { type: "none", interval: "", cron: "", timezone: "UTC" };

export function scheduleFieldsFromForm(form: Record<string, unknown>): ScheduleFields {
  const type = str(form.schedule_type);
  return {
    type: type === "interval" || type === "cron" ? type : "none",
    interval: (str(form.interval_seconds) ?? "").trim().slice(0, 20),
    cron: (str(form.cron_expression) ?? "").slice(0, 200),
    timezone: (str(form.timezone) ?? "").trim().slice(0, 100),
  };
}

/** The form's fields for an agent's current schedule, so the change form starts from it. */
export function scheduleFieldsOf(schedule: Record<string, unknown> | null): ScheduleFields {
  if (schedule?.type === "interval") return { ...NO_SCHEDULE, type: "interval", interval: String(schedule.interval_seconds ?? "") };
  if (schedule?.type === "cron") {
    return { ...NO_SCHEDULE, type: "cron", cron: String(schedule.cron_expression ?? ""), timezone: String(schedule.timezone ?? "UTC") };
  }
  return NO_SCHEDULE;
}

/**
 * The schedule the fields describe, checked as the REST API checks `schedule_config` (and as
 * scheduleAgent checks the deployment's shortest interval), with the same messages: a cron
 * expression must also fire at least once, so a preview or a deploy never fails on it later.
 */
export function parseSchedule(fields: ScheduleFields, minIntervalSeconds: number): ParsedSchedule {
  if (fields.type === "none") return { ok: true, config: null };
  if (fields.type === "interval") {
    const seconds = /^\d{1,9}$/.test(fields.interval) ? Number(fields.interval) : Number.NaN;
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_INTERVAL_SECONDS) {
      return { ok: false, field: "interval_seconds", message: `Give the interval as a whole number of seconds between 1 and ${MAX_INTERVAL_SECONDS}.` };
    }
    if (seconds < minIntervalSeconds) {
      return { ok: false, field: "interval_seconds", message: `The interval must be at least ${minIntervalSeconds} seconds on this deployment.` };
    }
    return { ok: true, config: { type: "interval", interval_seconds: seconds } };
  }
  const expression = fields.cron.trim();
  if (expression.length > 100 || expression.split(/\s+/).length !== 5 || !parses(expression)) {
    return { ok: false, field: "cron_expression", message: 'Use a standard 5-field cron expression, e.g. "0 9 * * 1".' };
  }
  const timezone = fields.timezone || "UTC";
  if (timezone.length > 64 || !isTimeZone(timezone)) return { ok: false, field: "timezone", message: "Use an IANA time zone such as Europe/Berlin." };
  if (!firstCronInstant(expression, timezone)) return { ok: false, field: "cron_expression", message: NEVER_FIRES_MESSAGE };
  return { ok: true, config: { type: "cron", cron_expression: expression, timezone } };
}

function parses(expression: string): boolean {
  try {
    parseCronExpression(expression);
    return true;
  } catch {
    return false;
  }
}

/**
 * The next `count` run times: cron through the scheduler's own nextCronInstant, an interval by
 * adding it to the first due time (the agent's next_run_at when known, else one interval from now).
 */
export function nextRuns(config: ScheduleConfig | null, now: Date, firstDue?: Date | null, count = PREVIEW_COUNT): Date[] {
  if (!config) return [];
  const runs: Date[] = [];
  if (config.type === "interval") {
    const step = config.interval_seconds * 1000;
    const first = firstDue && firstDue.getTime() > now.getTime() ? firstDue.getTime() : now.getTime() + step;
    for (let n = 0; n < count; n++) runs.push(new Date(first + n * step));
    return runs;
  }
  // A rare expression (29 February) may have fewer run times within the cron library's reach.
  for (let after = firstCronInstant(config.cron_expression, config.timezone, now); after && runs.length < count; ) {
    runs.push(after);
    after = firstCronInstant(config.cron_expression, config.timezone, after);
  }
  return runs;
}

const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** A schedule in words, with the exact expression kept alongside when it is a cron. */
export function describeSchedule(schedule: Record<string, unknown> | null): string {
  if (schedule?.type === "interval") return `Every ${describeSeconds(Number(schedule.interval_seconds))}`;
  if (schedule?.type !== "cron") return "No schedule (events and manual runs only)";
  const expression = String(schedule.cron_expression);
  const zone = String(schedule.timezone ?? "UTC");
  const words = describeCron(expression);
  return words ? `${words} (${zone}; cron ${expression})` : `Cron ${expression} (${zone})`;
}

function describeSeconds(seconds: number): string {
  const units: [number, string][] = [
    [86_400, "day"],
    [3600, "hour"],
    [60, "minute"],
  ];
  for (const [size, unit] of units) {
    if (seconds >= size && seconds % size === 0) return seconds === size ? unit : `${seconds / size} ${unit}s`;
  }
  return seconds === 1 ? "second" : `${seconds} seconds`;
}

/** Words for the common shapes (every N minutes, daily, weekdays, one weekday); undefined otherwise. */
function describeCron(expression: string): string | undefined {
  const [minute, hour, dayOfMonth, month, dayOfWeek] = expression.split(/\s+/);
  const everyMinutes = /^\*\/(\d+)$/.exec(minute ?? "");
  if (everyMinutes && hour === "*" && dayOfMonth === "*" && month === "*" && dayOfWeek === "*") return `Every ${everyMinutes[1]} minutes`;
  if (!/^\d{1,2}$/.test(minute ?? "") || !/^\d{1,2}$/.test(hour ?? "") || month !== "*") return undefined;
  const at = `at ${hour!.padStart(2, "0")}:${minute!.padStart(2, "0")}`;
  if (dayOfMonth === "*" && dayOfWeek === "*") return `Every day ${at}`;
  if (dayOfMonth === "*" && dayOfWeek === "1-5") return `Weekdays ${at}`;
  if (dayOfMonth === "*" && /^[0-7]$/.test(dayOfWeek ?? "")) return `Every ${DAY_NAMES[Number(dayOfWeek) % 7]} ${at}`;
  if (/^\d{1,2}$/.test(dayOfMonth ?? "") && dayOfWeek === "*") return `Day ${dayOfMonth} of every month ${at}`;
  return undefined;
}

/**
 * An instant as a reader in `timeZone` sees it, e.g. "Mon, 6 Jan 2025, 09:00 Europe/Paris";
 * seconds only when the instant has some (interval runs), so close runs do not look the same.
 */
export function formatInstant(instant: Date, timeZone = "UTC"): string {
  const text = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    ...(instant.getUTCSeconds() ? { second: "2-digit" as const } : {}),
    hourCycle: "h23",
  }).format(instant);
  return `${text} ${timeZone}`;
}
