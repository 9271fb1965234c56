import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";

/** Every answer says `X-Content-Type-Options: nosniff`: successes and problems alike. */
const NOSNIFF = "nosniff";

describe("X-Content-Type-Options", () => {
  it("is nosniff on a success, the OpenAPI document, and 401, 404, 422 and 429 problems", async () => {
    const { key } = await newApiKey(await newUser());
    const answers: Record<string, Response> = {
      "200 /v1/me": await call("/v1/me", { token: key }),
      "200 /v1/openapi.json": await call("/v1/openapi.json"),
      "401 /v1/me": await call("/v1/me"),
      "404 /v1/no-such-thing": await call("/v1/no-such-thing", { token: key }),
      "422 /v1/auth/register": await call("/v1/auth/register", { json: { email: "not-an-email" } }),
    };
    // Spend the key's budget for the minute (twice over, in case the window rolls over mid-way).
    const limit = Number(env.REQUEST_RATE_LIMIT_PER_MINUTE);
    let limited = await call("/v1/me", { token: key });
    for (let i = 0; i < 2 * limit && limited.status !== 429; i++) {
      await limited.arrayBuffer();
      limited = await call("/v1/me", { token: key });
    }
    answers["429 /v1/me"] = limited;

    const seen = Object.entries(answers).map(([name, response]) => `${name}: ${response.status} ${response.headers.get("X-Content-Type-Options")}`);
    expect(seen).toEqual(Object.keys(answers).map((name) => `${name}: ${name.split(" ")[0]} ${NOSNIFF}`));
    for (const response of Object.values(answers)) await response.arrayBuffer();
  });

  it("is nosniff on the 401 of every operation in the OpenAPI document", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    const missing: string[] = [];
    let checked = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!(op.security ?? []).some((s: any) => s.bearerAuth)) continue;
        const response = await call(path.replace(/\{[^}]+\}/g, "1"), { method: method.toUpperCase() });
        await response.arrayBuffer();
        checked++;
        if (response.status !== 401 || response.headers.get("X-Content-Type-Options") !== NOSNIFF)
          missing.push(`${method.toUpperCase()} ${path}: ${response.status} ${response.headers.get("X-Content-Type-Options")}`);
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });
});
