import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { call, expectProblem, newApp, newUser } from "../helpers/api";
import { openAuthorizePage, postForm } from "../helpers/authorize";
import { Browser, newEmail } from "../dashboard/browser";
import { runtimeFor } from "../../src/core/context";
import { withinSignInLimit } from "../../src/auth/sign-in-limit";

const LIMIT = Number(env.ACCOUNT_AUTH_RATE_LIMIT_PER_MINUTE);
const REDIRECT = "https://app.example/callback";
const LIMITED = "Too many failed sign-ins for this account. Try again in";

/** Every attempt comes from an address of its own, so the per-address limit never applies. */
let attempts = 0;
const anotherAddress = () => ({ "CF-Connecting-IP": `203.0.113.${(attempts++ % 200) + 20}` });

const apiLogin = (email: string, password: string) => call("/v1/auth/login", { json: { email, password }, headers: anotherAddress() });

/**
 * The limiter counts in fixed one-minute windows by the clock. The Worker and its Durable Objects
 * run in this isolate, so the tests set that clock: frozen a second into a window (a test never
 * straddles two), then moved past the window's end instead of waiting a minute.
 */
let now = 0;
beforeEach(() => {
  now = (Math.floor(Date.now() / 60_000) + 1) * 60_000 + 1_000;
  vi.useFakeTimers({ toFake: ["Date"], now });
});
afterEach(() => {
  vi.useRealTimers();
});
const afterTheWindow = () => vi.setSystemTime(now + 60_000);

function expectRetryAfter(response: Response) {
  const seconds = Number(response.headers.get("Retry-After"));
  expect(seconds).toBeGreaterThan(0);
  expect(seconds).toBeLessThanOrEqual(60);
}

describe("failed sign-ins are limited per account, whatever the address", () => {
  it("the test settings give the account a limit well below the per-address one", () => {
    expect(LIMIT).toBeGreaterThan(1);
    expect(LIMIT).toBeLessThan(Number(env.AUTH_RATE_LIMIT_PER_MINUTE));
  });

  it("API: after the limit of wrong passwords from as many addresses, even the right one gets 429 with Retry-After until the window ends", async () => {
    const user = await newUser();
    const other = await newUser();
    for (let i = 0; i < LIMIT; i++) await expectProblem(await apiLogin(user.email, `guess ${i}`), 401, "invalid_credentials");

    const limited = await apiLogin(user.email, user.password);
    const problem = await expectProblem(limited, 429, "rate_limited");
    expect(problem.detail).toContain(LIMITED);
    expectRetryAfter(limited);
    // The same account however the email is written.
    await expectProblem(await apiLogin(`  ${user.email.toUpperCase()} `, user.password), 429, "rate_limited");
    // Another account is unaffected.
    expect((await apiLogin(other.email, other.password)).status).toBe(200);

    // The owner is not kept out past the window.
    afterTheWindow();
    expect((await apiLogin(user.email, user.password)).status).toBe(200);
  });

  it("API: counts unknown emails like wrong passwords, so the answers do not tell which emails have an account", async () => {
    const user = await newUser();
    const unknown = newEmail();
    const statuses = async (email: string) => {
      const seen: number[] = [];
      for (let i = 0; i <= LIMIT; i++) seen.push((await apiLogin(email, `guess ${i}`)).status);
      return seen;
    };
    const expected = [...Array(LIMIT).fill(401), 429];
    expect(await statuses(user.email)).toEqual(expected);
    expect(await statuses(unknown)).toEqual(expected);
  });

  it("API: a successful sign-in does not count, and registering again with a wrong password counts as a failure", async () => {
    const user = await newUser();
    for (let i = 0; i < LIMIT - 1; i++) await expectProblem(await apiLogin(user.email, `guess ${i}`), 401, "invalid_credentials");
    // Were successes counted, the second of these would be refused.
    for (let i = 0; i < 3; i++) expect((await apiLogin(user.email, user.password)).status).toBe(200);
    await expectProblem(await apiLogin(user.email, "the last guess"), 401, "invalid_credentials");
    await expectProblem(await apiLogin(user.email, user.password), 429, "rate_limited");

    // Registering with a taken email checks the password too: it is no way around the limit.
    const owner = await newUser();
    const register = (password: string) => call("/v1/auth/register", { json: { email: owner.email, password }, headers: anotherAddress() });
    for (let i = 0; i < LIMIT; i++) await expectProblem(await register(`guess number ${i}`), 409, "conflict");
    const refused = await register(owner.password);
    await expectProblem(refused, 429, "rate_limited");
    expectRetryAfter(refused);
    await expectProblem(await apiLogin(owner.email, owner.password), 429, "rate_limited");
  });

  it("API: a burst of concurrent wrong passwords from as many addresses gets at most the limit of 401s, the rest 429", async () => {
    const user = await newUser();
    const statuses = await Promise.all(Array.from({ length: 3 * LIMIT }, (_, i) => apiLogin(user.email, `burst guess ${i}`).then((r) => r.status)));
    // The clock is frozen inside one window, so exactly the limit gets through to the password check.
    expect(statuses.filter((status) => status === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(2 * LIMIT);
    await expectProblem(await apiLogin(user.email, user.password), 429, "rate_limited");
  });

  it("checks still running when more arrive (as on many isolates at once): no more than the limit reach the password check", async () => {
    const email = newEmail();
    const runtime = runtimeFor(env);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let checked = 0;
    let refused = 0;
    // Each check waits until every attempt has been let through or refused, so none of them has
    // failed yet while the others ask: a limit that counted failures only afterwards would let all in.
    const attempts = Array.from({ length: 3 * LIMIT }, () =>
      withinSignInLimit(runtime, email, async () => {
        checked++;
        await gate;
        return undefined;
      }).catch((error) => {
        if (error?.code !== "rate_limited") throw error;
        refused++;
      }),
    );
    for (let waited = 0; checked + refused < 3 * LIMIT && waited < 5_000; waited += 20) await scheduler.wait(20);
    release();
    await Promise.all(attempts);
    expect(checked).toBe(LIMIT);
    expect(refused).toBe(2 * LIMIT);
  });

  it("API: the right password after a few failures works every time and gives back the hit it took", async () => {
    const user = await newUser();
    for (let i = 0; i < 3; i++) await expectProblem(await apiLogin(user.email, `guess ${i}`), 401, "invalid_credentials");
    // More successes than the failures left: were their hits kept, the last of them would be refused.
    for (let i = 0; i < LIMIT; i++) expect((await apiLogin(user.email, user.password)).status).toBe(200);
    // Concurrent successes too.
    const together = await Promise.all(Array.from({ length: LIMIT - 3 }, () => apiLogin(user.email, user.password).then((r) => r.status)));
    expect(together).toEqual(Array(LIMIT - 3).fill(200));
    // Every failure is still left: LIMIT - 3 more wrong passwords are answered, then 429.
    for (let i = 3; i < LIMIT; i++) await expectProblem(await apiLogin(user.email, `guess ${i}`), 401, "invalid_credentials");
    await expectProblem(await apiLogin(user.email, user.password), 429, "rate_limited");
  });

  it("dashboard: the sign-in page answers 429 with Retry-After, even for the right password, until the window ends", async () => {
    const email = newEmail();
    const otherEmail = newEmail();
    for (const address of [email, otherEmail]) {
      const browser = new Browser();
      expect((await browser.register(address)).status).toBe(303);
    }
    const signIn = async (browser: Browser, address: string, password: string) =>
      browser.request("/", { form: { step: "sign_in", email: address, password, csrf_token: await browser.csrf("/") } });

    const browser = new Browser();
    for (let i = 0; i < LIMIT; i++) {
      const wrong = await signIn(browser, email, `guess ${i}`);
      expect(wrong.status).toBe(401);
    }
    const limited = await signIn(browser, email, "correct horse battery");
    expect(limited.status).toBe(429);
    expectRetryAfter(limited);
    const html = await limited.text();
    expect(html).toMatch(new RegExp(`${LIMITED} \\d+ s\\.`));
    expect(await (await browser.request("/")).text()).not.toContain(`Welcome, ${email}`);

    const other = new Browser();
    expect((await signIn(other, otherEmail, "correct horse battery")).status).toBe(303);

    afterTheWindow();
    expect((await signIn(browser, email, "correct horse battery")).status).toBe(303);
    expect(await (await browser.request("/")).text()).toContain(`Welcome, ${email}`);
  });

  it("authorize page: the sign-in step answers 429 with Retry-After, even for the right password, until the window ends", async () => {
    const user = await newUser();
    const other = await newUser();
    const app = await newApp(await newUser());
    const signIn = async (email: string, password: string) => {
      const { url, jar, csrf } = await openAuthorizePage({ client_id: app.client_id, redirect_uri: REDIRECT });
      return postForm(url, jar, { csrf_token: csrf, step: "sign_in", email, password });
    };

    for (let i = 0; i < LIMIT; i++) expect((await signIn(user.email, `guess ${i}`)).status).toBe(401);
    const limited = await signIn(user.email, user.password);
    expect(limited.status).toBe(429);
    expectRetryAfter(limited);
    const html = await limited.text();
    expect(html).toMatch(new RegExp(`${LIMITED} \\d+ s\\.`));
    expect(html).not.toContain("Approve");

    const consent = await signIn(other.email, other.password);
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain("Approve");

    afterTheWindow();
    const again = await signIn(user.email, user.password);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain("Approve");
  });
});
