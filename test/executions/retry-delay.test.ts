// The wait before a retry: the policy's delay with ±20 % jitter (from the run and step, so runs
// that failed together spread out and a given run is predictable), or the platform's
// Retry-After when that is longer, never more than an hour.
import { describe, expect, it } from "vitest";
import { retriesStatus, retryDelayMs } from "../../src/executions/steps/attempts";

const fixed = { max_attempts: 5, delay_seconds: 10, backoff: "fixed" as const };
const exponential = { ...fixed, backoff: "exponential" as const };

describe("retryDelayMs", () => {
  it("stays within ±20 % of the policy's delay, doubling with exponential backoff", () => {
    for (let run = 0; run < 200; run++) {
      const seed = `exec_${run}:send`;
      expect(retryDelayMs(fixed, 1, seed)).toBeGreaterThanOrEqual(8_000);
      expect(retryDelayMs(fixed, 1, seed)).toBeLessThanOrEqual(12_000);
      expect(retryDelayMs(exponential, 3, seed)).toBeGreaterThanOrEqual(32_000);
      expect(retryDelayMs(exponential, 3, seed)).toBeLessThanOrEqual(48_000);
    }
  });

  it("spreads runs that failed together, and gives one run the same wait each time", () => {
    const waits = Array.from({ length: 100 }, (_, run) => retryDelayMs(fixed, 1, `exec_${run}:send`));
    expect(new Set(waits).size).toBeGreaterThan(50);
    expect(Math.min(...waits)).toBeLessThan(9_000);
    expect(Math.max(...waits)).toBeGreaterThan(11_000);
    expect(retryDelayMs(fixed, 2, "exec_7:send")).toBe(retryDelayMs(fixed, 2, "exec_7:send"));
    expect(retryDelayMs({ ...fixed, delay_seconds: 0 }, 1, "exec_7:send")).toBe(0);
  });

  it("waits out a longer Retry-After, keeps the policy's delay over a shorter one, and caps it at an hour", () => {
    expect(retryDelayMs(fixed, 1, "exec_1:send", 120)).toBe(120_000);
    expect(retryDelayMs(fixed, 1, "exec_1:send", 1)).toBe(retryDelayMs(fixed, 1, "exec_1:send"));
    expect(retryDelayMs(fixed, 1, "exec_1:send", 86_400)).toBe(3_600_000);
    expect(retryDelayMs(fixed, 1, "exec_1:send", null)).toBe(retryDelayMs(fixed, 1, "exec_1:send"));
  });
});

describe("retriesStatus", () => {
  it("is true only for a status the policy's `on` lists", () => {
    expect(retriesStatus({ ...fixed, on: [409] }, 409)).toBe(true);
    expect(retriesStatus({ ...fixed, on: [409] }, 404)).toBe(false);
    expect(retriesStatus(fixed, 409)).toBe(false);
    expect(retriesStatus({ ...fixed, on: [409] }, null)).toBe(false);
  });
});
