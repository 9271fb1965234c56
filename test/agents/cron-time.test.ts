import { describe, expect, it } from "vitest";
import { firstCronInstant, nextCronInstant } from "../../src/lib/cron-time";
import { nextDueAfter } from "../../src/agents/firing";

describe("cron due times", () => {
  it("reads the expression in the schedule's time zone, across daylight-saving changes", () => {
    // 09:00 every day in New York: 14:00 UTC in winter (EST), 13:00 UTC in summer (EDT).
    expect(nextCronInstant("0 9 * * *", "America/New_York", new Date("2026-01-10T12:00:00Z")).toISOString()).toBe("2026-01-10T14:00:00.000Z");
    expect(nextCronInstant("0 9 * * *", "America/New_York", new Date("2026-07-10T12:00:00Z")).toISOString()).toBe("2026-07-10T13:00:00.000Z");
    // The morning after the spring change (2026-03-08) is already EDT.
    expect(nextCronInstant("0 9 * * *", "America/New_York", new Date("2026-03-07T15:00:00Z")).toISOString()).toBe("2026-03-08T13:00:00.000Z");
    // Mondays 08:30 in Tokyo (UTC+9, no DST) is Sunday 23:30 UTC.
    expect(nextCronInstant("30 8 * * 1", "Asia/Tokyo", new Date("2026-11-22T00:00:00Z")).toISOString()).toBe("2026-11-22T23:30:00.000Z");
    expect(nextCronInstant("0 9 * * 1", "UTC", new Date("2026-11-22T00:00:00Z")).toISOString()).toBe("2026-11-23T09:00:00.000Z");
  });

  it("moves an interval schedule to the first slot after now, never a burst of missed ones", () => {
    const last = new Date("2026-11-22T10:00:00Z");
    expect(nextDueAfter({ type: "interval", interval_seconds: 60 }, last, new Date("2026-11-22T10:05:30Z"))!.toISOString()).toBe("2026-11-22T10:06:00.000Z");
    expect(nextDueAfter({ type: "interval", interval_seconds: 60 }, last, new Date("2026-11-22T10:00:00Z"))!.toISOString()).toBe("2026-11-22T10:01:00.000Z");
  });
});

describe("cron expressions that never fire", () => {
  it("have no first instant, where a rare one (29 February) still has one", () => {
    const after = new Date("2026-01-01T00:00:00Z");
    expect(firstCronInstant("0 0 31 2 *", "UTC", after)).toBeUndefined();
    expect(firstCronInstant("0 0 30 2 *", "Europe/Berlin", after)).toBeUndefined();
    expect(firstCronInstant("0 0 31 4 *", "UTC", after)).toBeUndefined();
    expect(firstCronInstant("0 0 29 2 *", "UTC", after)?.toISOString()).toBe("2028-02-29T00:00:00.000Z");
  });
});
