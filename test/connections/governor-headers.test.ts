import { describe, expect, it } from "vitest";
import { isLimited, readLimitSignal, retryAt } from "../../src/connections/governor/headers";

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const read = (status: number, fields: Record<string, string>) => readLimitSignal(status, new Headers(fields), NOW);

describe("reading a platform's rate-limit fields", () => {
  it("reads Retry-After as seconds (decimals too) or as an HTTP-date, and ignores past, empty and garbage values", () => {
    expect(retryAt("3", NOW)).toBe(NOW + 3000);
    expect(retryAt("1.5", NOW)).toBe(NOW + 1500);
    expect(retryAt(new Date(NOW + 7000).toUTCString(), NOW)).toBe(NOW + 7000);
    expect(retryAt(new Date(NOW - 7000).toUTCString(), NOW)).toBeUndefined();
    expect(retryAt("0", NOW)).toBeUndefined();
    expect(retryAt("soon", NOW)).toBeUndefined();
    expect(retryAt("-4", NOW)).toBeUndefined();
    expect(retryAt(`${"9".repeat(200)}`, NOW)).toBeUndefined();
    expect(retryAt(null, NOW)).toBeUndefined();
    // A day at most, however long the platform asks for.
    expect(retryAt("999999", NOW)).toBe(NOW + 24 * 3600 * 1000);
  });

  it("reads Retry-After only on 429 and 503", () => {
    expect(read(429, { "Retry-After": "2" }).retryAt).toBe(NOW + 2000);
    expect(read(503, { "Retry-After": "2" }).retryAt).toBe(NOW + 2000);
    expect(read(200, { "Retry-After": "2" }).retryAt).toBeUndefined();
  });

  it("reads X-RateLimit-* with the reset in seconds from now, as an epoch in seconds, or as an epoch in milliseconds", () => {
    const fields = { "X-RateLimit-Limit": "10", "X-RateLimit-Remaining": "3" };
    expect(read(200, { ...fields, "X-RateLimit-Reset": "1" })).toEqual({ status: 200, limit: 10, remaining: 3, resetAt: NOW + 1000 });
    expect(read(200, { ...fields, "X-RateLimit-Reset": String(NOW / 1000 + 30) }).resetAt).toBe(NOW + 30_000);
    expect(read(200, { ...fields, "X-RateLimit-Reset": String(NOW + 1500) }).resetAt).toBe(NOW + 1500);
    // Discord's relative field wins over its epoch.
    expect(read(200, { ...fields, "X-RateLimit-Reset": String(NOW / 1000 + 30), "X-RateLimit-Reset-After": "0.25" }).resetAt).toBe(NOW + 250);
  });

  it("reads X's x-rate-limit-* fields (one more hyphen), the reset an epoch in seconds", () => {
    const reset = String(NOW / 1000 + 900);
    expect(read(429, { "x-rate-limit-limit": "100", "x-rate-limit-remaining": "0", "x-rate-limit-reset": reset })).toEqual({
      status: 429,
      limit: 100,
      remaining: 0,
      resetAt: NOW + 900_000,
    });
  });

  it("reads the IETF fields of every draft: combined, structured with a policy, and separate", () => {
    expect(read(200, { RateLimit: "limit=10, remaining=3, reset=1", "RateLimit-Policy": "10;w=1" })).toEqual({
      status: 200,
      limit: 10,
      remaining: 3,
      resetAt: NOW + 1000,
      windowMs: 1000,
    });
    expect(read(200, { RateLimit: '"default";r=3;t=2', "RateLimit-Policy": '"default";q=100;w=10' })).toEqual({
      status: 200,
      limit: 100,
      remaining: 3,
      resetAt: NOW + 2000,
      windowMs: 10_000,
    });
    expect(read(200, { "RateLimit-Limit": "2", "RateLimit-Remaining": "1", "RateLimit-Reset": "1" })).toEqual({
      status: 200,
      limit: 2,
      remaining: 1,
      resetAt: NOW + 1000,
    });
    // Several policies: the strictest rate binds; several states: the one with the least left.
    expect(read(200, { "RateLimit-Policy": "1000;w=3600, 10;w=1" })).toMatchObject({ limit: 1000, windowMs: 3_600_000 });
    expect(read(200, { RateLimit: '"burst";r=50;t=1, "daily";r=2;t=3600' })).toMatchObject({ remaining: 2, resetAt: NOW + 3_600_000 });
  });

  it("ignores values that are not numbers", () => {
    expect(read(200, { "X-RateLimit-Limit": "ten", "X-RateLimit-Remaining": "1e3", "X-RateLimit-Reset": "-1" })).toEqual({ status: 200 });
    expect(read(200, { RateLimit: "limit=;;;,,,remaining=x" })).toEqual({ status: 200 });
  });

  it("counts a 429, a 503 and less than 20 % left as limited", () => {
    expect(isLimited({ status: 429 })).toBe(true);
    expect(isLimited({ status: 503 })).toBe(true);
    expect(isLimited({ status: 200, limit: 10, remaining: 1 })).toBe(true);
    expect(isLimited({ status: 200, limit: 10, remaining: 2 })).toBe(false);
    expect(isLimited({ status: 200, remaining: 0 })).toBe(true);
    expect(isLimited({ status: 200, remaining: 1 })).toBe(false);
    expect(isLimited({ status: 500 })).toBe(false);
  });
});
