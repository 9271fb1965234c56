import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { consumeRateLimits, consumeReturnable, exhaustedOf } from "../../src/http/rate-limit";
import { call, expectProblem, newApiKey, newUser } from "../helpers/api";

describe("rate limits", () => {
  it("limits each credential per minute with RateLimit headers, then 429 and Retry-After", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user);
    const limit = Number(env.REQUEST_RATE_LIMIT_PER_MINUTE);
    const first = await call("/v1/me", { token: key });
    const perUser = Number(env.USER_RATE_LIMIT_PER_MINUTE);
    expect(first.headers.get("RateLimit-Policy")).toBe(`"requests";q=${limit};w=60, "user";q=${perUser};w=60`);
    expect(first.headers.get("RateLimit")).toMatch(new RegExp(`^"requests";r=${limit - 1};t=\\d+, "user";r=\\d+;t=\\d+$`));

    // Spend the rest of the window (it may roll over mid-test; then spend the new one too).
    let response = first;
    for (let i = 1; i <= 2 * limit && response.status !== 429; i++) response = await call("/v1/me", { token: key });
    const body = await expectProblem(response, 429, "rate_limited");
    expect(body.detail).toContain(String(limit));
    const retryAfter = Number(response.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(response.headers.get("RateLimit")).toMatch(/r=0/);

    // Another credential of the same user has its own budget.
    const other = await newApiKey(user);
    expect((await call("/v1/me", { token: other.key })).status).toBe(200);
  });

  it("serves a burst of simultaneous requests up to the limit exactly, refusing only what is over it", async () => {
    const { key } = await newApiKey(await newUser());
    const limit = Number(env.REQUEST_RATE_LIMIT_PER_MINUTE);
    // A few requests one after another first, so this isolate's leases have grown.
    for (let i = 0; i < 10; i++) expect((await call("/v1/me", { token: key })).status).toBe(200);
    // Requests arriving together share one lease at a time, so none is refused while budget is left.
    const statuses = await Promise.all(Array.from({ length: limit }, () => call("/v1/me", { token: key }).then((r) => r.status)));
    const allowed = 10 + statuses.filter((status) => status === 200).length;
    // The window may roll over during the burst; then more than the limit may pass, never fewer.
    expect(allowed).toBeGreaterThanOrEqual(limit);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
  });

  it("also limits each user across all their credentials", async () => {
    const user = await newUser();
    const perUser = Number(env.USER_RATE_LIMIT_PER_MINUTE);
    const perCredential = Number(env.REQUEST_RATE_LIMIT_PER_MINUTE);
    expect(perUser).toBeLessThan(2 * perCredential);
    const keys = [await newApiKey(user), await newApiKey(user)];
    let response: Response | undefined;
    // Spread requests over two keys: neither reaches its own limit before the user's is spent.
    for (let i = 0; i < 2 * perUser && response?.status !== 429; i++) response = await call("/v1/me", { token: keys[i % 2]!.key });
    const body = await expectProblem(response!, 429, "rate_limited");
    expect(body.detail).toContain("for this account");
    expect(response!.headers.get("RateLimit-Policy")).toContain(`"user";q=${perUser};w=60`);
  });

  it("limits sign-in attempts per client address", async () => {
    const limit = Number(env.AUTH_RATE_LIMIT_PER_MINUTE ?? 30);
    const headers = { "CF-Connecting-IP": "203.0.113.77" };
    let response: Response | undefined;
    // A different account each time: the per-account limit of failures is not what refuses.
    for (let i = 0; i <= 2 * limit && response?.status !== 429; i++) {
      response = await call("/v1/auth/login", { json: { email: `nobody-${crypto.randomUUID()}@example.com`, password: `guess number ${i}` }, headers });
    }
    const refused = await expectProblem(response!, 429, "rate_limited");
    expect(refused.detail).toContain("sign-in attempts from this address");
    // Other addresses are unaffected.
    await expectProblem(
      await call("/v1/auth/login", { json: { email: `nobody-${crypto.randomUUID()}@example.com`, password: "x" } }),
      401,
      "invalid_credentials",
    );
  });

  it("takes back a hit given back within its window, from the object or this isolate's allowance, never letting more than the limit through", async () => {
    // The object runs in this isolate: a frozen clock keeps the test inside one window.
    const start = (Math.floor(Date.now() / 60_000) + 1) * 60_000 + 1_000;
    vi.useFakeTimers({ toFake: ["Date"], now: start });
    try {
      const subject = `test:${crypto.randomUUID()}`;
      const counters = [{ name: "things", limit: 100 }];
      const allowedOf = async (n: number) => {
        let allowed = 0;
        for (let i = 0; i < n; i++) if (!exhaustedOf(await consumeRateLimits(env.RATE_LIMITER, subject, counters))) allowed++;
        return allowed;
      };
      // Leases grow to 5 hits here, so these come partly from the object and partly from this isolate.
      const hits = [];
      for (let i = 0; i < 100; i++) hits.push(await consumeReturnable(env.RATE_LIMITER, subject, counters));
      expect(hits.filter((hit) => exhaustedOf(hit.results))).toEqual([]);
      const refused = await consumeReturnable(env.RATE_LIMITER, subject, counters);
      expect(exhaustedOf(refused.results)).toBeDefined();
      // A refused hit took nothing, so it gives nothing back; giving one back twice counts once.
      await refused.giveBack();
      for (const hit of hits.slice(0, 10)) await hit.giveBack();
      await hits[0]!.giveBack();
      expect(await allowedOf(20)).toBe(10);

      // A hit of an earlier window is not given back into the next one.
      vi.setSystemTime(start + 60_000);
      expect(await allowedOf(100)).toBe(100);
      for (const hit of hits.slice(10, 20)) await hit.giveBack();
      expect(await allowedOf(5)).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
