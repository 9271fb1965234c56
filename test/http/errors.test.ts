import { describe, expect, it } from "vitest";
import { call, expectProblem, newApiKey, newUser } from "../helpers/api";

describe("problem responses", () => {
  it("answers malformed JSON with 400 malformed_json and the documented shape", async () => {
    const { key } = await newApiKey(await newUser());
    const response = await call("/v1/me", { method: "PATCH", token: key, body: "{not json", headers: { "Content-Type": "application/json" } });
    const body = await expectProblem(response, 400, "malformed_json");
    expect(body).toEqual({
      type: "http://hub.test/docs#error-malformed_json",
      title: "Malformed JSON",
      status: 400,
      detail: expect.any(String),
      code: "malformed_json",
      request_id: response.headers.get("X-Request-Id"),
    });
  });

  it("answers a non-JSON body with 415", async () => {
    const { key } = await newApiKey(await newUser());
    await expectProblem(
      await call("/v1/me", { method: "PATCH", token: key, body: "name=x", headers: { "Content-Type": "text/plain" } }),
      415,
      "unsupported_media_type",
    );
    await expectProblem(
      await call("/v1/auth/register", { body: "email=a", headers: { "Content-Type": "application/x-www-form-urlencoded" } }),
      415,
      "unsupported_media_type",
    );
  });

  it("answers an unknown route with 404 for a signed-in caller, 401 for an anonymous one", async () => {
    const { key } = await newApiKey(await newUser());
    await expectProblem(await call("/v1/no-such-thing", { token: key }), 404, "not_found");
    await expectProblem(await call("/v1/no-such-thing"), 401, "unauthorized");
    await expectProblem(await call("/no-such-page"), 404, "not_found");
  });

  it("lists every invalid field with its location", async () => {
    const body = await expectProblem(await call("/v1/auth/register", { json: { email: "not-an-email", password: 5, extra: true } }), 422, "validation_failed");
    const fields = body.errors!.map((e) => `${e.location}:${e.field}`);
    expect(fields).toEqual(expect.arrayContaining(["body:email", "body:password"]));
  });

  it("refuses bodies over 1 MiB with 413, with or without Content-Length", async () => {
    const { key } = await newApiKey(await newUser());
    const big = JSON.stringify({ name: "x".repeat(1024 * 1024) });
    await expectProblem(
      await call("/v1/me", { method: "PATCH", token: key, body: big, headers: { "Content-Type": "application/json" } }),
      413,
      "payload_too_large",
    );
    const stream = new Blob([big]).stream();
    const chunked = await call("/v1/me", { method: "PATCH", token: key, body: stream, headers: { "Content-Type": "application/json" } });
    await expectProblem(chunked, 413, "payload_too_large");
  });

  it("echoes a client's X-Request-Id and makes one up otherwise", async () => {
    const response = await call("/v1/me", { headers: { "X-Request-Id": "client-chosen-id-123" } });
    expect(response.headers.get("X-Request-Id")).toBe("client-chosen-id-123");
    expect(((await response.json()) as any).request_id).toBe("client-chosen-id-123");
    const generated = await call("/v1/me", { headers: { "X-Request-Id": "bad id with spaces" } });
    expect(generated.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
