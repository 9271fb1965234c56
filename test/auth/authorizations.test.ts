import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApp, newUser } from "../helpers/api";
import { obtainCode } from "../helpers/authorize";

const REDIRECT = "https://app.example/callback";
const DAY = 24 * 3600 * 1000;

/** A person approves `app` on the consent page; the app exchanges the code for tokens. */
async function approve(user: Awaited<ReturnType<typeof newUser>>, app: Awaited<ReturnType<typeof newApp>>, scope: string) {
  const code = await obtainCode(user, { client_id: app.client_id, redirect_uri: REDIRECT, scope, state: "s" });
  const tokens = await call("/v1/auth/token", {
    form: { grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: app.client_id, client_secret: app.client_secret },
  });
  expect(tokens.status).toBe(200);
  return json(tokens);
}

describe("approved apps", () => {
  it("lists the apps a person approved and revokes one: its tokens stop at once", async () => {
    const owner = await newUser();
    const reporter = await newApp(owner, { name: "Campaign Reporter", scopes: ["data:read", "workflow:execute"] });
    const other = await newApp(owner, { name: "Other", scopes: ["data:read"] });
    const person = await newUser();
    const first = await approve(person, reporter, "data:read");
    await approve(person, reporter, "workflow:execute");
    const otherTokens = await approve(person, other, "data:read");

    const listed = await json(await call("/v1/auth/authorizations", { token: person.accessToken }));
    expect(listed.data.map((a: any) => a.name).sort()).toEqual(["Campaign Reporter", "Other"]);
    const entry = listed.data.find((a: any) => a.client_id === reporter.client_id);
    expect(entry).toMatchObject({ scopes: ["data:read", "workflow:execute"], last_used_at: expect.any(String) });
    // Another person sees none of them.
    expect((await json(await call("/v1/auth/authorizations", { token: owner.accessToken }))).data).toEqual([]);

    // Refreshing counts as use: last_used_at moves forward.
    const before = entry.last_used_at;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const renewed = await call("/v1/auth/token", {
      form: { grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: reporter.client_id, client_secret: reporter.client_secret },
    });
    expect(renewed.status).toBe(200);
    const current = await json(renewed);
    const relisted = await json(await call("/v1/auth/authorizations", { token: person.accessToken }));
    const used = relisted.data.find((a: any) => a.client_id === reporter.client_id).last_used_at;
    expect(Date.parse(used)).toBeGreaterThan(Date.parse(before));
    expect(Date.parse(used)).toBeGreaterThanOrEqual(Date.parse(entry.created_at));

    // An approval the app has not exchanged yet dies with the rest.
    const pendingCode = await obtainCode(person, { client_id: reporter.client_id, redirect_uri: REDIRECT, scope: "data:read", state: "s" });

    expect((await call("/v1/me", { token: current.access_token })).status).toBe(200);
    await expectProblem(await call(`/v1/auth/authorizations/${reporter.client_id}`, { method: "DELETE", token: owner.accessToken }), 404, "not_found");
    expect((await call(`/v1/auth/authorizations/${reporter.client_id}`, { method: "DELETE", token: person.accessToken })).status).toBe(204);

    await expectProblem(await call("/v1/me", { token: current.access_token }), 401, "unauthorized");
    await expectProblem(await call("/v1/me", { token: first.access_token }), 401, "unauthorized");
    const refreshed = await call("/v1/auth/token", {
      form: { grant_type: "refresh_token", refresh_token: current.refresh_token, client_id: reporter.client_id, client_secret: reporter.client_secret },
    });
    expect(refreshed.status).toBe(400);
    expect((await json(refreshed)).error).toBe("invalid_grant");
    const exchanged = await call("/v1/auth/token", {
      form: {
        grant_type: "authorization_code",
        code: pendingCode,
        redirect_uri: REDIRECT,
        client_id: reporter.client_id,
        client_secret: reporter.client_secret,
      },
    });
    expect(exchanged.status).toBe(400);
    expect((await json(exchanged)).error).toBe("invalid_grant");
    // The other app keeps working; the revoked one is gone from the list, and revoking it again is a 404.
    expect((await call("/v1/me", { token: otherTokens.access_token })).status).toBe(200);
    expect((await json(await call("/v1/auth/authorizations", { token: person.accessToken }))).data.map((a: any) => a.name)).toEqual(["Other"]);
    await expectProblem(await call(`/v1/auth/authorizations/${reporter.client_id}`, { method: "DELETE", token: person.accessToken }), 404, "not_found");
    // Only the account holder manages them: a token of an app cannot.
    await expectProblem(await call("/v1/auth/authorizations", { token: otherTokens.access_token }), 403, "forbidden");
  });

  it("a sign-in or an authorization ends 90 days after it was granted, however often it is refreshed", async () => {
    const user = await newUser();
    const login = await json(await call("/v1/auth/login", { json: { email: user.email, password: user.password } }));
    const refresh = (token: string) => call("/v1/auth/token", { form: { grant_type: "refresh_token", refresh_token: token } });
    const renewed = await refresh(login.refresh_token);
    expect(renewed.status).toBe(200);
    const { refresh_token } = await json(renewed);

    // The grant was made 91 days ago: rotation cannot carry it further.
    await env.DB.prepare("UPDATE grants SET created_at = ? WHERE user_id = ?")
      .bind(Date.now() - 91 * DAY, user.id)
      .run();
    const expired = await refresh(refresh_token);
    expect(expired.status).toBe(400);
    expect((await json(expired)).error).toBe("invalid_grant");
  });

  it("an app's refresh token issued near the end of its authorization expires with it", async () => {
    const owner = await newUser();
    const app = await newApp(owner, { name: "Near the end", scopes: ["data:read"] });
    const person = await newUser();
    const tokens = await approve(person, app, "data:read");
    const refresh = (token: string) =>
      call("/v1/auth/token", { form: { grant_type: "refresh_token", refresh_token: token, client_id: app.client_id, client_secret: app.client_secret } });

    // Approved 89 days ago: one more rotation works, but the new token lasts one day, not 30.
    const approvedAt = Date.now() - 89 * DAY;
    await env.DB.prepare("UPDATE grants SET created_at = ? WHERE user_id = ? AND client_id = ?").bind(approvedAt, person.id, app.client_id).run();
    const renewed = await refresh(tokens.refresh_token);
    expect(renewed.status).toBe(200);
    const latest = await env.DB.prepare(
      "SELECT r.expires_at FROM refresh_tokens r JOIN grants g ON g.id = r.grant_id WHERE g.user_id = ? AND g.client_id = ? ORDER BY r.rowid DESC LIMIT 1",
    )
      .bind(person.id, app.client_id)
      .first<{ expires_at: number }>();
    expect(latest!.expires_at).toBeLessThanOrEqual(approvedAt + 90 * DAY);

    // A day and a bit later the authorization has ended: refreshing is refused.
    await env.DB.prepare("UPDATE grants SET created_at = ? WHERE user_id = ? AND client_id = ?")
      .bind(Date.now() - 91 * DAY, person.id, app.client_id)
      .run();
    const expired = await refresh((await json(renewed)).refresh_token);
    expect(expired.status).toBe(400);
    expect((await json(expired)).error).toBe("invalid_grant");
  });
});
