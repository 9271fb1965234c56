// http_request fails on a status of 400 or more, classified like a platform's answer, unless
// allow_error_status asks for the answer as it is ({ok: false, status, …}, as before).
import { describe, expect, it } from "vitest";
import { FAKE, Hub, newScenario } from "./platform-helpers";

async function script(scenario: string, answers: { status: number; body: unknown; headers?: Record<string, string> }[]) {
  expect((await fetch(`${FAKE}/__script/${scenario}`, { method: "POST", body: JSON.stringify(answers) })).status).toBe(204);
}

describe("http_request and error statuses", () => {
  it("a 404 is a permanent failure naming the host and the body's message", async () => {
    const hub = await Hub.create();
    const url = `${FAKE}/s/${newScenario()}/missing`;
    expect(await hub.execute("http_request", { url })).toMatchObject({
      success: false,
      result: null,
      error_message: `${new URL(url).host} answered 404: no fake for GET /missing`,
      error_status: 404,
      retryable: false,
      retry_after_seconds: null,
    });
  });

  it("a 503 with Retry-After (an HTTP-date) is transient and says how long to wait", async () => {
    const hub = await Hub.create();
    const scenario = newScenario();
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 60_000).toUTCString();
    await script(scenario, [{ status: 503, body: { message: "down for maintenance" }, headers: { "Retry-After": at } }]);
    const out = await hub.execute("http_request", { url: `${FAKE}/s/${scenario}/things/1` });
    expect(out).toMatchObject({ success: false, error_status: 503, retryable: true });
    expect(out.retry_after_seconds).toBeGreaterThan(50);
    expect(out.retry_after_seconds).toBeLessThanOrEqual(61);
  });

  it("with allow_error_status the answer comes back as it is", async () => {
    const hub = await Hub.create();
    const out = await hub.execute("http_request", { url: `${FAKE}/s/${newScenario()}/missing`, allow_error_status: true });
    expect(out).toMatchObject({ success: true, error_status: null, result: { ok: false, status: 404, body: { message: "no fake for GET /missing" } } });
  });
});
