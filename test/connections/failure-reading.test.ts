// How a failed platform answer is read, whatever the platform: Retry-After in either of its
// forms, which statuses may pass if tried again, and the text of an error body.
import { describe, expect, it } from "vitest";
import { describeBody, retryAfterSeconds } from "../../src/connections/platforms/failures";
import { offsetCursor, offsetOf, nextOffsetCursor } from "../../src/connections/platforms/cursor";
import { PlatformError, isTransientStatus } from "../../src/connections/platforms/types";

describe("retryAfterSeconds", () => {
  const now = Date.parse("2026-11-22T09:00:00Z");
  it("reads delay-seconds and HTTP-dates", () => {
    expect(retryAfterSeconds("120", now)).toBe(120);
    expect(retryAfterSeconds(" 0 ", now)).toBe(0);
    expect(retryAfterSeconds("1.5", now)).toBe(2);
    expect(retryAfterSeconds("Sun, 22 Nov 2026 09:01:30 GMT", now)).toBe(90);
    expect(retryAfterSeconds("Sun, 22 Nov 2026 08:00:00 GMT", now)).toBe(0);
  });
  it("is undefined for nothing or nonsense", () => {
    for (const value of [null, undefined, "", "soon", "-5", "x".repeat(10_000)]) expect(retryAfterSeconds(value, now)).toBeUndefined();
  });
});

describe("permanent and transient statuses", () => {
  it("retries no answer, 408, 425, 429 and 5xx; not 400, 401, 403, 404, 409, 410, 422", () => {
    for (const status of [0, 408, 425, 429, 500, 502, 503, 504]) expect(isTransientStatus(status), String(status)).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 410, 422]) expect(isTransientStatus(status), String(status)).toBe(false);
  });
  it("lets a platform's reader override the status (Slack's ratelimited comes with 200)", () => {
    expect(new PlatformError("x", 200, undefined, { retryable: true }).retryable).toBe(true);
    expect(new PlatformError("x", 429, undefined, { retryable: false }).retryable).toBe(false);
    expect(new PlatformError("x", 409).retryable).toBe(false);
  });
});

describe("describeBody", () => {
  it("takes the common message fields, bounded", () => {
    expect(describeBody({ message: "nope" })).toBe("nope");
    expect(describeBody({ error: { message: "bad key" } })).toBe("bad key");
    expect(describeBody({ detail: "gone" })).toBe("gone");
    expect(describeBody("x".repeat(1000))).toHaveLength(300);
    expect(describeBody(null)).toBe("");
  });
});

describe("offset cursors (Mailchimp)", () => {
  it("round-trip, end on a short page or at the total, and refuse what they did not give", () => {
    expect(offsetOf(undefined)).toBe(0);
    expect(offsetOf(offsetCursor(200))).toBe(200);
    expect(nextOffsetCursor(0, 100, 100, 250)).toBe(offsetCursor(100));
    expect(nextOffsetCursor(200, 50, 100, 250)).toBeNull();
    expect(nextOffsetCursor(100, 100, 100, 200)).toBeNull();
    expect(nextOffsetCursor(0, 100, 100, undefined)).toBe(offsetCursor(100));
    expect(() => offsetOf("o1.zzzzzzzz")).toThrow(PlatformError);
  });
});
