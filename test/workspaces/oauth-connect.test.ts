import { describe, expect, it } from "vitest";
import { Browser, newEmail } from "../dashboard/browser";
import { call, json } from "../helpers/api";
import { authorizeAt, newClientId, oauth2Config } from "../connections/oauth-helpers";

async function person() {
  const browser = new Browser();
  const email = newEmail();
  await browser.register(email);
  return { browser, email, key: await browser.apiKey() };
}

describe("connecting a platform with OAuth in a team workspace", () => {
  it("completes only for the person who started it, into the workspace it was started for, whichever workspace their browser is in", async () => {
    const [starter, teammate] = await Promise.all([person(), person()]);
    const team = await json(await call("/v1/workspaces", { token: starter.key, json: { name: "Growth" } }));
    const added = await call(`/v1/workspaces/${team.id}/members`, { token: starter.key, json: { email: teammate.email, role: "editor" } });
    expect(added.status).toBe(201);
    const headers = { "Hub-Workspace": String(team.id) };
    const started = await call("/v1/connections/oauth/start", {
      token: starter.key,
      headers,
      json: { platform: "oauth2", name: "Team API", config: oauth2Config(newClientId()) },
    });
    expect(started.status).toBe(201);
    const { connection_id, authorize_url } = await json(started);
    const callback = await authorizeAt(authorize_url);

    // A teammate who gets the link cannot attach their own provider account to the workspace.
    const theirs = await teammate.browser.request(callback);
    expect(theirs.status).toBe(403);
    expect(await theirs.text()).toContain("started by someone else");

    // The starter's browser is in their personal workspace; the connection still lands in the team's.
    expect((await starter.browser.request(callback)).status).toBe(200);
    const connection = await json(await call(`/v1/connections/${connection_id}`, { token: starter.key, headers }));
    expect(connection).toMatchObject({ connection_id, status: "active" });
    expect((await call(`/v1/connections/${connection_id}`, { token: starter.key })).status).toBe(404);
  });
});
