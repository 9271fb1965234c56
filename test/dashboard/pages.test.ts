import { describe, expect, it } from "vitest";
import { call, newApp, newUser } from "../helpers/api";
import { Browser, newEmail } from "./browser";

describe("the dashboard's sign-in, session and API keys pages", () => {
  it("registers, signs in with a cookie session, creates a key shown once, revokes it, and signs out", async () => {
    const browser = new Browser();
    const landing = await browser.request("/");
    expect(landing.status).toBe(200);
    expect(landing.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    const page = await landing.text();
    expect(page).toContain('<label for="register-email">Email</label>');

    const registered = await browser.register(newEmail());
    expect(registered.status).toBe(303);
    const cookie = registered.headers.getSetCookie().find((line) => line.startsWith("ahk_session="))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
    // Local http: no Secure flag (it would stop the cookie); https deployments get it.
    expect(cookie).not.toMatch(/Secure/i);
    expect(await (await browser.request("/")).text()).toContain("Welcome,");

    const csrf = await browser.csrf("/app/keys");
    const created = await browser.request("/app/keys", { form: { step: "create", name: "CI pipeline", scopes: ["data:read"], csrf_token: csrf } });
    expect(created.status).toBe(201);
    const secret = (await created.text()).match(/<code id="new-key-secret">([^<]+)<\/code>/)![1]!;
    const me = await call("/v1/me", { token: secret });
    expect(me.status).toBe(200);
    // The key has only the scope chosen.
    expect((await call("/v1/workflows", { token: secret, json: { workflow_name: "x", description: "", steps: [] } })).status).toBe(403);
    // Shown once: the list shows the prefix, never the secret.
    const listed = await (await browser.request("/app/keys")).text();
    expect(listed).toContain("CI pipeline");
    expect(listed).not.toContain(secret);

    const keyId = listed.match(/name="key_id" value="(\d+)"/)![1]!;
    const revoked = await browser.request("/app/keys", { form: { step: "revoke", key_id: keyId, csrf_token: await browser.csrf("/app/keys") } });
    expect(revoked.status).toBe(303);
    expect((await call("/v1/me", { token: secret })).status).toBe(401);

    // Signing out ends the session for good: the old cookie, replayed, is nobody.
    const stolen = browser.cookies.get("ahk_session")!;
    expect((await browser.request("/", { form: { step: "sign_out", csrf_token: await browser.csrf("/") } })).status).toBe(303);
    expect(browser.cookies.has("ahk_session")).toBe(false);
    const replay = await call("/", { headers: { Cookie: `ahk_session=${stolen}` } });
    expect(await replay.text()).toContain("Create an account");
  });

  it("refuses forms without this session's CSRF token, from another origin, or in another encoding", async () => {
    const victim = new Browser();
    await victim.register(newEmail());
    const attacker = new Browser();
    await attacker.register(newEmail());
    const attackerToken = await attacker.csrf("/app/keys");

    const form = { step: "create", name: "planted", scopes: "data:read" };
    expect((await victim.request("/app/keys", { form })).status).toBe(403);
    expect((await victim.request("/app/keys", { form: { ...form, csrf_token: attackerToken } })).status).toBe(403);
    const victimToken = await victim.csrf("/app/keys");
    expect((await victim.request("/app/keys", { form: { ...form, csrf_token: victimToken }, headers: { Origin: "https://evil.example" } })).status).toBe(403);
    expect((await victim.request("/app/keys", { form: { ...form, csrf_token: victimToken }, headers: { "Sec-Fetch-Site": "cross-site" } })).status).toBe(403);
    const json = await call("/app/keys", {
      json: { ...form, csrf_token: victimToken },
      headers: { Cookie: [...victim.cookies].map(([n, v]) => `${n}=${v}`).join("; ") },
    });
    expect(json.status).toBe(415);
    expect(await (await victim.request("/app/keys")).text()).not.toContain("planted");
    // Signed out, the keys page sends the person to sign in.
    expect((await call("/app/keys")).status).toBe(303);
  });

  it("never turns a cookie planted before sign-in into the person's session (session fixation)", async () => {
    // A cookie the hub really issued, then signed out: what an attacker could plant.
    const attacker = new Browser();
    await attacker.register(newEmail());
    const planted = attacker.cookies.get("ahk_session")!;
    await attacker.request("/", { form: { step: "sign_out", csrf_token: await attacker.csrf("/") } });

    // The victim's browser carries it, then the victim registers (and so signs in).
    const victim = new Browser();
    victim.cookies.set("ahk_session", planted);
    const email = newEmail();
    await victim.register(email);
    const issued = victim.cookies.get("ahk_session")!;
    expect(issued).not.toBe(planted);
    expect(await (await victim.request("/")).text()).toContain(`Welcome, ${email}`);
    // The planted cookie was not brought to life by the victim's sign-in: it is nobody's session.
    const attackerView = await (await call("/", { headers: { Cookie: `ahk_session=${planted}` } })).text();
    expect(attackerView).not.toContain(email);
    expect(attackerView).toContain("Create an account");
  });

  it("the authorize page takes the dashboard's session: a signed-in person goes straight to consent", async () => {
    const developer = await newUser();
    const app = await newApp(developer);
    const browser = new Browser();
    const email = newEmail();
    await browser.register(email);
    const query = new URLSearchParams({
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: app.redirect_uris[0]!,
      scope: "data:read",
      state: "s1",
    });
    const consent = await (await browser.request(`/auth/authorize?${query}`)).text();
    expect(consent).toContain(email);
    expect(consent).toContain('value="approve"');
  });

  it("answers a wrong password on the page, and signs in with the right one", async () => {
    const browser = new Browser();
    const email = newEmail();
    await browser.register(email);
    await browser.request("/", { form: { step: "sign_out", csrf_token: await browser.csrf("/") } });
    const wrong = await browser.request("/", { form: { step: "sign_in", email, password: "not the password", csrf_token: await browser.csrf("/") } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("Wrong email or password.");
    const right = await browser.request("/", { form: { step: "sign_in", email, password: "correct horse battery", csrf_token: await browser.csrf("/") } });
    expect(right.status).toBe(303);
    expect(await (await browser.request("/")).text()).toContain(`Welcome, ${email}`);
  });

  it("OAuth apps: registers one (client secret shown once), lists what the person approved, revokes and deletes", async () => {
    const browser = new Browser();
    await browser.register(newEmail());
    const created = await browser.request("/app/apps", {
      form: {
        step: "create",
        name: "Report sync",
        redirect_uris: "https://sync.example/callback",
        scopes: ["data:read"],
        csrf_token: await browser.csrf("/app/apps"),
      },
    });
    expect(created.status).toBe(201);
    const html = await created.text();
    const clientId = html.match(/<code id="new-client-id">([^<]+)<\/code>/)![1]!;
    const secret = html.match(/<code id="new-client-secret">([^<]+)<\/code>/)![1]!;
    const token = () => call("/v1/auth/token", { form: { grant_type: "client_credentials", client_id: clientId, client_secret: secret } });
    expect((await token()).status).toBe(200);
    expect(await (await browser.request("/app/apps")).text()).not.toContain(secret);

    // The person approves the app on the authorize page (their dashboard session carries over)…
    const query = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: "https://sync.example/callback",
      scope: "data:read",
      state: "s",
    });
    const consent = await (await browser.request(`/auth/authorize?${query}`)).text();
    const consentToken = consent.match(/name="csrf_token" value="([^"]+)"/)![1]!;
    const approved = await browser.request(`/auth/authorize?${query}`, { form: { step: "approve", csrf_token: consentToken } });
    expect(approved.status).toBe(302);
    const code = new URL(approved.headers.get("Location")!).searchParams.get("code")!;
    const exchanged = await call("/v1/auth/token", {
      form: { grant_type: "authorization_code", code, redirect_uri: "https://sync.example/callback", client_id: clientId, client_secret: secret },
    });
    const { access_token } = await exchanged.json<{ access_token: string }>();
    expect((await call("/v1/me", { token: access_token })).status).toBe(200);

    // …sees it among the apps they approved, and revokes its access.
    const listed = await (await browser.request("/app/apps")).text();
    expect(listed).toContain("Revoke Report sync&#39;s access");
    const revoked = await browser.request("/app/apps", { form: { step: "revoke", client_id: clientId, csrf_token: await browser.csrf("/app/apps") } });
    expect(revoked.status).toBe(303);
    expect((await call("/v1/me", { token: access_token })).status).toBe(401);

    const deleted = await browser.request("/app/apps", { form: { step: "delete", client_id: clientId, csrf_token: await browser.csrf("/app/apps") } });
    expect(deleted.status).toBe(303);
    expect((await token()).status).toBe(401);
    // A redirect URI that is not allowed is refused on the page, saying why.
    const refused = await browser.request("/app/apps", {
      form: { step: "create", name: "Bad", redirect_uris: "javascript:alert(1)", scopes: "data:read", csrf_token: await browser.csrf("/app/apps") },
    });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain("Must use https (or http for a loopback address).");
  });
});
