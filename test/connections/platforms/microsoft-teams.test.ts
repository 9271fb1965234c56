// Microsoft Teams' tools on a connection made with OAuth (the fake provider), against the fake of
// Microsoft Graph v1.0: the delegated scopes asked for, the bearer token on each call, teams and
// channels, a message posted and replied to, a channel's messages paged by a cursor that carries
// only Graph's $skiptoken (never its host), the tenant in the Microsoft endpoints, and Graph's
// {error: {code, message}} refusals (404, 401, a 429 with Retry-After).
import { describe, expect, it } from "vitest";
import { microsoftTeams } from "../../../src/connections/platforms/microsoft-teams";
import { oauthSettingsFor } from "../../../src/connections/oauth-settings";
import { connectedWithOAuth, expectCall, jsonOf, requestsOf, respondWith } from "./platform-test-kit";

const TEAM = "172b0cce-e65d-44ce-9a49-91d9f2e8493a";
const GENERAL = "19:561fbdbbfca848a484f0a6f00ce9dbbd@thread.tacv2";
const GENERAL_PATH = `/v1.0/teams/${TEAM}/channels/${encodeURIComponent(GENERAL)}`;
const SCOPES = "offline_access User.Read Team.ReadBasic.All Channel.ReadBasic.All ChannelMessage.Send";

describe("Microsoft Teams", () => {
  it("asks for the delegated scopes, and reads who is signed in, their teams and a team's channels with the bearer token", async () => {
    const { authorize, execute, scenario } = await connectedWithOAuth("microsoft_teams");
    expect(authorize).toMatchObject({ scope: SCOPES });
    expect((await execute("microsoft_teams_get_me", {})).result).toEqual({
      id: "8ea0e38b-efb3-4757-924a-5f94061cf8c2",
      display_name: "Ada Lovelace",
      email: "ada@acme.example",
      user_principal_name: "ada@acme.onmicrosoft.com",
    });
    expect((await execute("microsoft_teams_list_joined_teams", {})).result).toEqual({
      teams: [{ id: TEAM, display_name: "Acme", description: "Everyone at Acme", is_archived: false }],
      next_cursor: null,
    });
    const channels = await execute("microsoft_teams_list_channels", { team_id: TEAM });
    expect(channels.result).toMatchObject({
      channels: [
        { id: GENERAL, display_name: "General", description: "Acme's whole team", membership_type: "standard" },
        { display_name: "Marketing", description: null, membership_type: "private" },
      ],
      next_cursor: null,
    });
    expect(channels.result.channels[0].web_url).toMatch(/^https:\/\/teams\.microsoft\.com\/l\/channel\//);

    const [me, teams, list] = await requestsOf(scenario);
    expectCall(me!, "GET", "/v1.0/me");
    expect(me!.headers.authorization).toMatch(/^Bearer at_\S{10,}$/);
    expectCall(teams!, "GET", "/v1.0/me/joinedTeams");
    expectCall(list!, "GET", `/v1.0/teams/${TEAM}/channels`);
    expect(list!.headers.authorization).toBe(me!.headers.authorization);
  });

  it("posts a message, replies to it, and lists the channel's messages newest first, a page at a time", async () => {
    const { execute, scenario } = await connectedWithOAuth("microsoft_teams");
    const posted = await execute("microsoft_teams_send_channel_message", {
      team_id: TEAM,
      channel_id: GENERAL,
      subject: "Launch",
      content: "<p>We are <b>live</b></p>",
      importance: "high",
    });
    expect(posted, JSON.stringify(posted)).toMatchObject({ success: true });
    expect(posted.result).toEqual({
      id: expect.stringMatching(/^\d{13}$/),
      reply_to_id: null,
      created_at: expect.stringMatching(/^2026-04-22T/),
      team_id: TEAM,
      channel_id: GENERAL,
      web_url: expect.stringContaining(`https://teams.microsoft.com/l/message/${encodeURIComponent(GENERAL)}/${posted.result.id}`),
    });
    const reply = await execute("microsoft_teams_reply_to_message", {
      team_id: TEAM,
      channel_id: GENERAL,
      message_id: posted.result.id,
      content: "Congrats!",
      content_type: "text",
    });
    expect(reply.result).toMatchObject({ reply_to_id: posted.result.id, team_id: TEAM, channel_id: GENERAL });

    const page = await execute("microsoft_teams_list_channel_messages", { team_id: TEAM, channel_id: GENERAL, limit: 2 });
    expect(page.result.messages).toEqual([
      {
        id: posted.result.id,
        reply_to_id: null,
        message_type: "message",
        created_at: posted.result.created_at,
        subject: "Launch",
        content_type: "html",
        content: "<p>We are <b>live</b></p>",
        from: "Ada Lovelace",
        from_user_id: "8ea0e38b-efb3-4757-924a-5f94061cf8c2",
        web_url: posted.result.web_url,
      },
      expect.objectContaining({ id: "1776850200000", content: "<p>Launch at noon</p>" }),
    ]);
    expect(page.result.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const rest = await execute("microsoft_teams_list_channel_messages", { team_id: TEAM, channel_id: GENERAL, limit: 2, cursor: page.result.next_cursor });
    expect(rest.result).toMatchObject({
      messages: [
        { id: "1776850100000", subject: "Agenda", content_type: "text", content: "Standup moved to 10:00" },
        { id: "1776850000000", from: "Grace Hopper" },
      ],
      next_cursor: null,
    });

    const [post, replied, first, second] = await requestsOf(scenario);
    expectCall(post!, "POST", `${GENERAL_PATH}/messages`);
    expect(post!.headers.authorization).toMatch(/^Bearer at_/);
    expect(jsonOf(post!)).toEqual({ subject: "Launch", importance: "high", body: { contentType: "html", content: "<p>We are <b>live</b></p>" } });
    expectCall(replied!, "POST", `${GENERAL_PATH}/messages/${posted.result.id}/replies`);
    expect(jsonOf(replied!)).toEqual({ body: { contentType: "text", content: "Congrats!" } });
    expectCall(first!, "GET", `${GENERAL_PATH}/messages`, { $top: "2" });
    // Graph's $skiptoken, as it was in the @odata.nextLink, characters and all.
    expectCall(second!, "GET", `${GENERAL_PATH}/messages`, { $top: "2", $skiptoken: "+RID:~fake==#RT:1#TRC:2#" });
  });

  it("takes only the $skiptoken of a next link, so a link to another host cannot take the token there", async () => {
    const { execute, scenario } = await connectedWithOAuth("microsoft_teams");
    await respondWith(scenario, 200, { value: [], "@odata.nextLink": "https://collector.example/steal?$top=5&$skiptoken=abc%2Fdef" });
    const page = await execute("microsoft_teams_list_channel_messages", { team_id: TEAM, channel_id: GENERAL });
    expect(page.result).toEqual({ messages: [], next_cursor: "YWJjL2RlZg" });
    await execute("microsoft_teams_list_channel_messages", { team_id: TEAM, channel_id: GENERAL, cursor: page.result.next_cursor });
    const [, next] = await requestsOf(scenario);
    expectCall(next!, "GET", `${GENERAL_PATH}/messages`, { $top: "20", $skiptoken: "abc/def" });
    // A cursor that is not base64url of a token is refused before anything is sent.
    const bad = await execute("microsoft_teams_list_channel_messages", { team_id: TEAM, channel_id: GENERAL, cursor: "_w" });
    expect(bad).toMatchObject({ success: false, error_status: 400, retryable: false });
    expect(await requestsOf(scenario)).toHaveLength(2);
  });

  it("reads Graph's refusals: an unknown team (404), a token Graph refuses (401), throttling (429 with Retry-After)", async () => {
    const { execute, scenario } = await connectedWithOAuth("microsoft_teams");
    expect(await execute("microsoft_teams_list_channels", { team_id: "00000000-0000-0000-0000-000000000000" })).toMatchObject({
      success: false,
      error_status: 404,
      retryable: false,
      error_message: "Microsoft Teams answered 404: No team found with Group Id 00000000-0000-0000-0000-000000000000",
    });
    expect(await execute("microsoft_teams_reply_to_message", { team_id: TEAM, channel_id: GENERAL, message_id: "42", content: "Hi" })).toMatchObject({
      error_status: 404,
      error_message: "Microsoft Teams answered 404: Message 42 not found.",
    });
    await respondWith(
      scenario,
      429,
      { error: { code: "TooManyRequests", message: "Too many requests from Identifier:app+user under category:ChannelMessage.", innerError: {} } },
      { "Retry-After": "2" },
    );
    expect(await execute("microsoft_teams_send_channel_message", { team_id: TEAM, channel_id: GENERAL, content: "Hi" })).toMatchObject({
      success: false,
      error_status: 429,
      retryable: true,
      retry_after_seconds: 2,
      error_message: "Microsoft Teams answered 429: Too many requests from Identifier:app+user under category:ChannelMessage.",
    });

    // Refused even with a renewed token: the connection's fault, not retried.
    const refused = await connectedWithOAuth("microsoft_teams");
    await respondWith(refused.scenario, 401, {
      error: { code: "InvalidAuthenticationToken", message: "Access token validation failure. Invalid audience.", innerError: {} },
    });
    expect(await refused.execute("microsoft_teams_get_me", {})).toMatchObject({
      success: false,
      error_status: 401,
      retryable: false,
      error_message: "Microsoft Teams answered 401: Access token validation failure. Invalid audience.",
    });
    expect(await requestsOf(refused.scenario)).toHaveLength(2);
  });

  it("signs in at the tenant the connection names (common by default), and the config's endpoints still win", () => {
    const deployment = { microsoft_teams: { clientId: "deployment-app", clientSecret: "deployment-secret" } };
    expect(oauthSettingsFor(microsoftTeams, {}, deployment)).toMatchObject({
      authorizeUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
      tokenUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
      clientId: "deployment-app",
      scopes: SCOPES.split(" "),
    });
    expect(oauthSettingsFor(microsoftTeams, { tenant: "contoso.onmicrosoft.com" }, deployment)).toMatchObject({
      authorizeUrl: "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/authorize",
      tokenUrl: "https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token",
      clientSecret: "deployment-secret",
    });
    expect(
      oauthSettingsFor(microsoftTeams, { tenant: "organizations", token_url: "https://login.example/token", client_id: "mine" }, deployment),
    ).toMatchObject({
      authorizeUrl: "https://login.microsoftonline.com/organizations/oauth2/v2.0/authorize",
      tokenUrl: "https://login.example/token",
      clientId: "mine",
    });
    // A tenant is one path segment of Microsoft's host, never a way elsewhere.
    for (const tenant of ["evil.example/x", "..", "common?x=1", "a b"]) expect(microsoftTeams.config.safeParse({ tenant }).success, tenant).toBe(false);
    expect(microsoftTeams.config.safeParse({ tenant: "dcd219dd-bc68-4b9b-bf0b-4a33a796be35" }).success).toBe(true);
  });
});
