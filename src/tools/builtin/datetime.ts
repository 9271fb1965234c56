import { z } from "@hono/zod-openapi";
import { ToolError, defineBuiltin } from "../types";

const UNITS = { seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000, weeks: 604_800_000 } as const;

export const datetimeTool = defineBuiltin({
  name: "datetime",
  effect: "read",
  title: "Date and time",
  description:
    "Date arithmetic for scheduling and reports: `now`, `format` (in a time zone and locale), `add` an amount of a unit, `diff` between two dates, and `parts` (year, month, weekday… in a time zone).",
  input: z.object({
    operation: z.enum(["now", "format", "add", "diff", "parts"]),
    date: z.string().max(64).optional().describe("ISO 8601 date or date-time; defaults to now."),
    other: z.string().max(64).optional().describe("diff: the second date."),
    amount: z.number().optional(),
    unit: z.enum(["seconds", "minutes", "hours", "days", "weeks", "months", "years"]).default("days"),
    timezone: z.string().max(64).default("UTC"),
    locale: z.string().max(35).default("en-US"),
  }),
  async run(_ctx, args) {
    const date = parseDate(args.date);
    const timezone = checkTimeZone(args.timezone);
    switch (args.operation) {
      case "now":
        return describe(new Date(), timezone, args.locale);
      case "format":
        return describe(date, timezone, args.locale);
      case "add":
        return describe(add(date, args.amount ?? 0, args.unit), timezone, args.locale);
      case "diff": {
        const other = parseDate(args.other);
        const ms = other.getTime() - date.getTime();
        const value = args.unit === "months" || args.unit === "years" ? monthsBetween(date, other) / (args.unit === "years" ? 12 : 1) : ms / UNITS[args.unit];
        return { value, unit: args.unit, milliseconds: ms };
      }
      case "parts":
        return { ...parts(date, timezone), iso: date.toISOString(), timezone };
    }
  },
});

function parseDate(raw: string | undefined): Date {
  if (!raw) return new Date();
  const date = new Date(raw);
  if (Number.isNaN(date.getTime())) throw new ToolError(`"${raw}" is not a date; use ISO 8601 such as 2026-11-22T09:30:00Z.`);
  return date;
}

function checkTimeZone(timezone: string): string {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    return timezone;
  } catch {
    throw new ToolError(`Unknown time zone "${timezone}"; use an IANA name such as Europe/Berlin.`);
  }
}

function add(date: Date, amount: number, unit: string): Date {
  let result: Date;
  if (unit === "months" || unit === "years") {
    result = new Date(date);
    result.setUTCMonth(result.getUTCMonth() + amount * (unit === "years" ? 12 : 1));
  } else {
    result = new Date(date.getTime() + amount * UNITS[unit as keyof typeof UNITS]);
  }
  // A huge amount lands outside what a date can hold; say so rather than fail later on formatting.
  if (Number.isNaN(result.getTime())) throw new ToolError("The result is outside the range of dates (about 270,000 years either side of 1970).");
  return result;
}

function monthsBetween(a: Date, b: Date): number {
  return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth());
}

function parts(date: Date, timeZone: string) {
  const fields = new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
    weekday: "long",
    hourCycle: "h23",
  }).formatToParts(date);
  const get = (type: string) => fields.find((f) => f.type === type)?.value ?? "";
  return {
    year: Number(get("year")),
    month: Number(get("month")),
    day: Number(get("day")),
    hour: Number(get("hour")),
    minute: Number(get("minute")),
    second: Number(get("second")),
    weekday: get("weekday"),
  };
}

function describe(date: Date, timezone: string, locale: string) {
  let formatted: string;
  try {
    formatted = new Intl.DateTimeFormat(locale, { timeZone: timezone, dateStyle: "full", timeStyle: "long" }).format(date);
  } catch {
    throw new ToolError(`Unknown locale "${locale}".`);
  }
  return { iso: date.toISOString(), unix: Math.floor(date.getTime() / 1000), timezone, formatted, ...parts(date, timezone) };
}
