import { parseCronExpression } from "cron-schedule";

/** Minutes east of UTC that `timeZone` is at `instant` (e.g. 60 for Europe/Berlin in winter). */
function offsetMinutes(instant: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(instant);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return Math.round((wall - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
}

export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The first instant after `after` at which a 5-field cron expression matches the wall clock of
 * `timeZone`. The expression is evaluated on wall-clock time (the runtime's own clock is UTC), then
 * mapped back to an instant with the zone's offset at that moment. A wall-clock time skipped by a
 * daylight-saving jump fires at the same offset as the hour before it.
 */
export function nextCronInstant(expression: string, timeZone: string, after: Date): Date {
  const cron = parseCronExpression(expression);
  if (timeZone.toUpperCase() === "UTC") return cron.getNextDate(after);
  let from = new Date(after.getTime() + offsetMinutes(after, timeZone) * 60_000);
  for (let guard = 0; guard < 1000; guard++) {
    const wall = cron.getNextDate(from);
    const guess = new Date(wall.getTime() - offsetMinutes(wall, timeZone) * 60_000);
    const instant = new Date(wall.getTime() - offsetMinutes(guess, timeZone) * 60_000);
    if (instant.getTime() > after.getTime()) return instant;
    from = wall; // a repeated wall-clock hour (autumn): look for the next match
  }
  throw new Error("No next run time found for this schedule.");
}

/** What the API and the dashboard say about an expression no date matches. */
export const NEVER_FIRES_MESSAGE = "This cron expression never fires: no date matches it (such as 31 February). Check the day of month and month.";

/**
 * The first instant the expression fires after `after`, or undefined when it never does: an
 * expression can parse yet match no date at all ("0 0 31 2 *", 31 February), and the cron
 * library then throws. Checked before a schedule is accepted, so a stored schedule always fires.
 */
export function firstCronInstant(expression: string, timeZone: string, after = new Date()): Date | undefined {
  try {
    return nextCronInstant(expression, timeZone, after);
  } catch {
    return undefined;
  }
}
