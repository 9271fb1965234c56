import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";

/**
 * Audit records are written after the answer has gone (so a tool call costs no extra round trip
 * before it answers), and still none may be missing: every call_id answered has its record.
 */
describe("audit records written after the answer", () => {
  it("exist for every call, including calls made at the same time and calls that failed", async () => {
    const { key } = await newApiKey(await newUser());
    const calls = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call("/v1/tools/execute", { token: key, json: { name: "math_evaluate", arguments: { expression: i % 5 === 4 ? "1 / (" : `${i} * 2` } } }).then(json),
      ),
    );
    expect(calls.filter((c) => c.success)).toHaveLength(16);
    const answered = new Set(calls.map((c) => c.call_id));

    let recorded = new Set<string>();
    for (let attempt = 0; attempt < 50 && recorded.size < answered.size; attempt++) {
      const page = await json(await call("/v1/audit-logs?limit=100", { token: key }));
      recorded = new Set(page.data.map((entry: { call_id: string }) => entry.call_id));
      if (recorded.size < answered.size) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect([...answered].filter((id) => !recorded.has(id))).toEqual([]);
  });
});
