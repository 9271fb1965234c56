import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newUser } from "../helpers/api";

describe("register and login", () => {
  it("registers a user and returns working tokens", async () => {
    const email = `ada-${crypto.randomUUID()}@example.com`;
    const response = await call("/v1/auth/register", { json: { email: email.toUpperCase(), password: "long enough pass", name: "Ada" } });
    expect(response.status).toBe(201);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const body = await json(response);
    expect(body.user).toMatchObject({ email, name: "Ada", default_provider: null });
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    expect(body.refresh_token).toMatch(/^ahr_/);
    expect(JSON.stringify(body)).not.toContain("password");

    const me = await call("/v1/me", { token: body.access_token });
    expect(me.status).toBe(200);
    expect(await json(me)).toMatchObject({ id: body.user.id, email, credential: { kind: "session", client_id: null } });
  });

  it("does not say whether an email is taken: the same password signs in, another gets a 409 that names no reason", async () => {
    const user = await newUser();
    const taken = await expectProblem(await call("/v1/auth/register", { json: { email: user.email, password: "another password" } }), 409, "conflict");
    expect(taken.detail).toBe("An account could not be created with these details. If you already have one, sign in.");
    expect(taken.detail).not.toMatch(/exist|taken|registered/i);
    // Registering again with the same details is a sign-in, answered exactly like a creation.
    const again = await call("/v1/auth/register", { json: { email: user.email.toUpperCase(), password: user.password, name: "Someone else" } });
    expect(again.status).toBe(201);
    const body = await json(again);
    expect(body).toMatchObject({
      user: { id: user.id, email: user.email },
      token_type: "Bearer",
      access_token: expect.any(String),
      refresh_token: expect.any(String),
    });
    expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "refresh_token", "scope", "token_type", "user"]);
  });

  it("refuses a short password with 422", async () => {
    const weak = await expectProblem(await call("/v1/auth/register", { json: { email: "x@example.com", password: "short" } }), 422, "validation_failed");
    expect(weak.errors).toContainEqual(expect.objectContaining({ location: "body", field: "password" }));
  });

  it("logs in with the right password only, and the JWT has the documented claims", async () => {
    const user = await newUser();
    await expectProblem(await call("/v1/auth/login", { json: { email: user.email, password: "wrong password" } }), 401, "invalid_credentials");
    await expectProblem(await call("/v1/auth/login", { json: { email: "nobody@example.com", password: "wrong password" } }), 401, "invalid_credentials");

    const response = await call("/v1/auth/login", { json: { email: user.email, password: user.password } });
    expect(response.status).toBe(200);
    const tokens = await json(response);
    const [header, payload] = tokens.access_token
      .split(".")
      .slice(0, 2)
      .map((part: string) => JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/"))));
    expect(header).toEqual({ alg: "HS256", typ: "at+jwt" });
    expect(payload).toMatchObject({ iss: "agent-automation-hub", aud: "agent-automation-hub/v1", sub: String(user.id) });
    expect(payload.scope.split(" ").sort()).toEqual(["connections:write", "data:read", "data:write", "workflow:execute"]);
    expect(payload.exp - payload.iat).toBe(3600);
    expect(typeof payload.jti).toBe("string");
  });

  it("logout revokes the session's access and refresh tokens", async () => {
    const user = await newUser();
    expect((await call("/v1/auth/logout", { method: "POST", token: user.accessToken })).status).toBe(204);
    await expectProblem(await call("/v1/me", { token: user.accessToken }), 401, "unauthorized");
    const refreshed = await call("/v1/auth/token", { form: { grant_type: "refresh_token", refresh_token: user.refreshToken } });
    expect(refreshed.status).toBe(400);
    expect(await json(refreshed)).toMatchObject({ error: "invalid_grant" });
  });

  it("PATCH /v1/me updates the name and default provider and validates them", async () => {
    const user = await newUser();
    // Read first, so the account record is cached: the change must replace it, not wait it out.
    expect((await call("/v1/me", { token: user.accessToken })).status).toBe(200);
    const response = await call("/v1/me", { method: "PATCH", token: user.accessToken, json: { name: "Grace", default_provider: "openai" } });
    expect(response.status).toBe(200);
    expect(await json(response)).toMatchObject({ name: "Grace", default_provider: "openai" });
    expect(await json(await call("/v1/me", { token: user.accessToken }))).toMatchObject({ name: "Grace", default_provider: "openai" });
    const bad = await expectProblem(
      await call("/v1/me", { method: "PATCH", token: user.accessToken, json: { default_provider: "skynet" } }),
      422,
      "validation_failed",
    );
    expect(bad.errors?.[0]).toMatchObject({ location: "body", field: "default_provider" });
  });
});
