import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApp, newUser } from "../helpers/api";
import { obtainCode } from "../helpers/authorize";

const REDIRECT = "https://app.example/callback";

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

    expect((await call("/v1/me", { token: first.access_token })).status).toBe(200);
    await expectProblem(await call(`/v1/auth/authorizations/${reporter.client_id}`, { method: "DELETE", token: owner.accessToken }), 404, "not_found");
    expect((await call(`/v1/auth/authorizations/${reporter.client_id}`, { method: "DELETE", token: person.accessToken })).status).toBe(204);

    await expectProblem(await call("/v1/me", { token: first.access_token }), 401, "unauthorized");
    const refreshed = await call("/v1/auth/token", {
      form: { grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: reporter.client_id, client_secret: reporter.client_secret },
    });
    expect(refreshed.status).toBe(400);
    expect((await json(refreshed)).error).toBe("invalid_grant");
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
      .bind(Date.now() - 91 * 24 * 3600 * 1000, user.id)
      .run();
    const expired = await refresh(refresh_token);
    expect(expired.status).toBe(400);
    expect((await json(expired)).error).toBe("invalid_grant");
  });
});
