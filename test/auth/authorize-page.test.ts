import { describe, expect, it } from "vitest";
import { call, newApp, newUser } from "../helpers/api";
import { CookieJar, authorizeAs, authorizeUrl, csrfFrom, openAuthorizePage, postForm } from "../helpers/authorize";

const REDIRECT = "https://app.example/callback";

describe("GET /auth/authorize", () => {
  it("shows an error page and never redirects for an unknown client or unregistered redirect_uri", async () => {
    const app = await newApp(await newUser());
    const cases: Record<string, string>[] = [
      { client_id: "ahc_unknown", redirect_uri: REDIRECT },
      { client_id: app.client_id, redirect_uri: "https://evil.example/callback" },
      { client_id: app.client_id, redirect_uri: `${REDIRECT}?extra=1` },
      { client_id: app.client_id },
    ];
    for (const params of cases) {
      const response = await call(authorizeUrl(params));
      expect(response.status).toBe(400);
      expect(response.headers.get("Location")).toBeNull();
      expect(response.headers.get("Content-Type")).toMatch(/text\/html/);
      expect(await response.text()).toContain("cannot be completed");
    }
  });

  it("redirects errors back to a registered client: bad response_type, scope or PKCE method", async () => {
    const app = await newApp(await newUser(), { scopes: ["data:read"] });
    const cases: [Record<string, string>, string][] = [
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ scope: "data:write" }, "invalid_scope"],
      [{ code_challenge: "a".repeat(43), code_challenge_method: "plain" }, "invalid_request"],
    ];
    for (const [params, error] of cases) {
      const response = await call(authorizeUrl({ client_id: app.client_id, redirect_uri: REDIRECT, state: "xyz", ...params }));
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get("Location")!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get("error")).toBe(error);
      expect(location.searchParams.get("state")).toBe("xyz");
    }
  });

  it("serves pages that cannot be framed and whose forms may only post here or to the client", async () => {
    const app = await newApp(await newUser());
    const response = await call(authorizeUrl({ client_id: app.client_id, redirect_uri: REDIRECT }));
    expect(response.status).toBe(200);
    const csp = response.headers.get("Content-Security-Policy")!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' https://app.example");
    expect(response.headers.get("X-Frame-Options")).toBe("DENY");
    const html = await response.text();
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html).toContain("Test App");
  });
});

describe("POST /auth/authorize", () => {
  it("refuses a form without the CSRF token, with a forged one, or from another origin", async () => {
    const user = await newUser();
    const app = await newApp(await newUser());
    const { url, jar, csrf } = await openAuthorizePage({ client_id: app.client_id, redirect_uri: REDIRECT });
    const fields = { step: "sign_in", email: user.email, password: user.password };

    expect((await postForm(url, jar, fields)).status).toBe(403);
    expect((await postForm(url, jar, { ...fields, csrf_token: `${csrf.slice(0, -2)}xx` })).status).toBe(403);
    expect((await postForm(url, new CookieJar(), { ...fields, csrf_token: csrf })).status).toBe(403);
    expect((await postForm(url, jar, { ...fields, csrf_token: csrf }, { Origin: "https://evil.example" })).status).toBe(403);
    expect((await postForm(url, jar, { ...fields, csrf_token: csrf }, { "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
    expect((await postForm(url, jar, { ...fields, csrf_token: csrf }, { Origin: "null" })).status).toBe(403);
    // The genuine form still works, including from a browser that hides its origin.
    const hidden = await postForm(url, jar, { ...fields, csrf_token: csrf }, { Origin: "null", "Sec-Fetch-Site": "same-origin" });
    expect(hidden.status).toBe(200);
    expect(await hidden.text()).toContain("Approve");
    // Signing in rotated the nonce: the sign-in page's token is spent.
    expect((await postForm(url, jar, { ...fields, csrf_token: csrf }, { Origin: "http://hub.test" })).status).toBe(403);
  });

  it("refuses an anonymous form token for approving, and oversized or non-form posts", async () => {
    const user = await newUser();
    const app = await newApp(await newUser());
    const { url, jar, csrf: anonymousToken } = await openAuthorizePage({ client_id: app.client_id, redirect_uri: REDIRECT });
    const consent = await postForm(url, jar, { csrf_token: anonymousToken, step: "sign_in", email: user.email, password: user.password });
    expect(consent.status).toBe(200);
    // The sign-in page's token was bound to nobody (and its nonce rotated at sign-in): it cannot approve.
    expect((await postForm(url, jar, { csrf_token: anonymousToken, step: "approve" })).status).toBe(403);
    expect((await postForm(url, jar, { csrf_token: csrfFrom(await consent.text()), step: "approve" })).status).toBe(302);

    const big = await call(url, { form: { csrf_token: "x", step: "sign_in", email: "a".repeat(20_000) }, headers: { Cookie: jar.header() } });
    expect(big.status).toBe(413);
    const json = await call(url, { json: { step: "sign_in" }, headers: { Cookie: jar.header() } });
    expect(json.status).toBe(415);
  });

  it("keeps the person on the sign-in form after a wrong password", async () => {
    const user = await newUser();
    const app = await newApp(await newUser());
    const { url, jar, csrf } = await openAuthorizePage({ client_id: app.client_id, redirect_uri: REDIRECT });
    const response = await postForm(url, jar, { csrf_token: csrf, step: "sign_in", email: user.email, password: "not the password" });
    expect(response.status).toBe(401);
    const html = await response.text();
    expect(html).toContain("Wrong email or password");
    expect(html).not.toContain("Approve");
  });

  it("approve redirects with a code and the state; deny with access_denied", async () => {
    const user = await newUser();
    const app = await newApp(await newUser());
    const params = { client_id: app.client_id, redirect_uri: REDIRECT, state: "st-1", scope: "data:read" };
    const approved = new URL((await authorizeAs(user, params)).headers.get("Location")!);
    expect(approved.searchParams.get("code")).toMatch(/^ahz_/);
    expect(approved.searchParams.get("state")).toBe("st-1");

    const denied = new URL((await authorizeAs(user, params, "deny")).headers.get("Location")!);
    expect(denied.searchParams.get("error")).toBe("access_denied");
    expect(denied.searchParams.get("state")).toBe("st-1");
    expect(denied.searchParams.get("code")).toBeNull();
  });
});
