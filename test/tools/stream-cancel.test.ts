import { describe, expect, it } from "vitest";
import { call, expectProblem, hangUpAfter, json, newApiKey, newUser } from "../helpers/api";

describe("POST /v1/tools/execute/stream", () => {
  it("cancels the tool call when the client disconnects", async () => {
    const { key } = await newApiKey(await newUser());
    const response = await call("/v1/tools/execute/stream", { token: key, json: { name: "wait", arguments: { seconds: 20 } } });
    expect(response.status).toBe(200);
    await hangUpAfter(response, "event: progress");
    const hungUpAt = Date.now();

    // The cancelled call is audited as an error well before its 20 seconds would have passed.
    let record: any;
    while (!record && Date.now() - hungUpAt < 10_000) {
      const { data } = await json(await call("/v1/audit-logs", { token: key }));
      record = data.find((r: any) => r.tool === "wait");
      if (!record) await scheduler.wait(50);
    }
    expect(record).toMatchObject({ outcome: "error", error_message: "The tool call was cancelled.", source: "stream" });
    expect(record.duration_ms).toBeLessThan(10_000);
  });

  it("refuses before streaming: unknown tool, bad arguments", async () => {
    const { key } = await newApiKey(await newUser());
    await expectProblem(await call("/v1/tools/execute/stream", { token: key, json: { name: "nope", arguments: {} } }), 404, "not_found");
    await expectProblem(await call("/v1/tools/execute/stream", { token: key, json: { name: "wait", arguments: { seconds: "x" } } }), 422, "validation_failed");
  });
});
