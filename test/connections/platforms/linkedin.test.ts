// LinkedIn's tools on a connection made with OAuth (the fake provider), against the fake of its
// API: the member from userinfo, posts as the member or a company page with the pinned
// LinkedIn-Version and Rest.li 2.0, the post's URN read from x-restli-id, commentary escaped as
// little text, deletes by encoded URN, and LinkedIn's refusals (422 duplicate, 403, 426, 401, 429).
import { describe, expect, it } from "vitest";
import { littleText } from "../../../src/connections/platforms/linkedin";
import { connectedWithOAuth, expectCall, jsonOf, requestsOf, respondWith } from "./platform-test-kit";

// The fake's member and the company page it administers (test/fakes/platforms/linkedin.mjs).
const MEMBER = "urn:li:person:782bbtaQ";
const ORGANIZATION = "urn:li:organization:2414183";
const PICTURE = "https://media.licdn.com/dms/image/v2/C4E03AQH/profile-displayphoto-shrink_100_100/0/1700000000000";
const DISTRIBUTION = { feedDistribution: "MAIN_FEED", targetEntities: [], thirdPartyDistributionChannels: [] };

describe("LinkedIn", () => {
  it("asks for the OpenID and Share on LinkedIn scopes and reads the member from userinfo with the bearer token", async () => {
    const { authorize, execute, scenario } = await connectedWithOAuth("linkedin");
    expect(authorize).toMatchObject({ scope: "openid profile email w_member_social" });
    const me = await execute("linkedin_get_userinfo", {});
    expect(me, JSON.stringify(me)).toMatchObject({
      success: true,
      result: {
        sub: "782bbtaQ",
        person_urn: MEMBER,
        name: "Ada Lovelace",
        given_name: "Ada",
        family_name: "Lovelace",
        email: "ada@example.com",
        email_verified: true,
        picture: PICTURE,
      },
    });
    const [request] = await requestsOf(scenario);
    expectCall(request!, "GET", "/v2/userinfo");
    expect(request!.headers.authorization).toMatch(/^Bearer at_\S{10,}$/);
  });

  it("posts as the member (author from userinfo), escaping little text, and answers the URN from x-restli-id", async () => {
    const { execute, scenario } = await connectedWithOAuth("linkedin");
    const out = await execute("linkedin_create_post", { commentary: "Launch day (v2) #ship" });
    expect(out, JSON.stringify(out)).toMatchObject({
      success: true,
      result: { id: "urn:li:share:7390000000000000001", author: MEMBER, url: "https://www.linkedin.com/feed/update/urn:li:share:7390000000000000001/" },
    });
    const id = out.result.id as string;
    const [userinfo, create] = await requestsOf(scenario);
    expectCall(userinfo!, "GET", "/v2/userinfo");
    expectCall(create!, "POST", "/rest/posts");
    expect(create!.headers.authorization).toMatch(/^Bearer at_/);
    expect(create!.headers["linkedin-version"]).toBe("202610");
    expect(create!.headers["x-restli-protocol-version"]).toBe("2.0.0");
    expect(jsonOf(create!)).toEqual({
      author: MEMBER,
      commentary: "Launch day \\(v2\\) \\#ship",
      visibility: "PUBLIC",
      distribution: DISTRIBUTION,
      lifecycleState: "PUBLISHED",
      isReshareDisabledByAuthor: false,
    });

    const deleted = await execute("linkedin_delete_post", { post_urn: id });
    expect(deleted).toMatchObject({ success: true, result: { id, deleted: true } });
    const remove = (await requestsOf(scenario))[2]!;
    expectCall(remove, "DELETE", "/rest/posts/urn%3Ali%3Ashare%3A7390000000000000001");
    expect(remove.headers["x-restli-method"]).toBe("DELETE");
    expect(remove.headers["linkedin-version"]).toBe("202610");
  });

  it("shares an article as a company page, in one call, and refuses a page the member may not post for (403)", async () => {
    const { execute, scenario } = await connectedWithOAuth("linkedin");
    const out = await execute("linkedin_create_article_post", {
      source: "https://example.com/blog/launch",
      title: "We launched",
      description: "What is new in v2",
      commentary: "Read all about it",
      author: ORGANIZATION,
      visibility: "LOGGED_IN",
    });
    expect(out, JSON.stringify(out)).toMatchObject({ success: true, result: { id: expect.stringMatching(/^urn:li:share:\d+$/), author: ORGANIZATION } });
    const [create] = await requestsOf(scenario);
    expectCall(create!, "POST", "/rest/posts");
    expect(jsonOf(create!)).toEqual({
      author: ORGANIZATION,
      commentary: "Read all about it",
      visibility: "LOGGED_IN",
      distribution: DISTRIBUTION,
      content: { article: { source: "https://example.com/blog/launch", title: "We launched", description: "What is new in v2" } },
      lifecycleState: "PUBLISHED",
      isReshareDisabledByAuthor: false,
    });

    const refused = await execute("linkedin_create_post", { commentary: "Hello", author: "urn:li:organization:1" });
    expect(refused).toMatchObject({
      success: false,
      error_status: 403,
      retryable: false,
      error_message:
        "LinkedIn answered 403: Not enough permissions to access: partnerApiPostsExternal.CREATE.20261001 (posting as a company page needs the w_organization_social scope and an admin or content role on the page)",
    });
  });

  it("reads LinkedIn's refusals: a duplicate post (422), a sunset version (426), a refused token (401), the daily limit (429)", async () => {
    const { execute, scenario } = await connectedWithOAuth("linkedin");
    const first = await execute("linkedin_create_post", { commentary: "Same words" });
    expect(first.success).toBe(true);
    expect(await execute("linkedin_create_post", { commentary: "Same words" })).toMatchObject({
      success: false,
      error_status: 422,
      retryable: false,
      error_message: `LinkedIn answered 422: Content is a duplicate of ${first.result.id}; Duplicate post is detected`,
    });

    const old = await connectedWithOAuth("linkedin", { api_version: "202401" });
    expect(await old.execute("linkedin_delete_post", { post_urn: "urn:li:ugcPost:123" })).toMatchObject({
      success: false,
      error_status: 426,
      retryable: false,
      error_message:
        "LinkedIn answered 426: Requested version 202401 is not active (set the connection's api_version to a LinkedIn-Version that is active, YYYYMM)",
    });
    expect((await requestsOf(old.scenario))[0]!.path).toBe("/rest/posts/urn%3Ali%3AugcPost%3A123");

    await respondWith(scenario, 401, {
      status: 401,
      serviceErrorCode: 65601,
      code: "REVOKED_ACCESS_TOKEN",
      message: "The token used in the request has been revoked by the user",
    });
    expect(await execute("linkedin_get_userinfo", {})).toMatchObject({
      success: false,
      error_status: 401,
      retryable: false,
      error_message: "LinkedIn answered 401: The token used in the request has been revoked by the user",
    });

    const limited = await connectedWithOAuth("linkedin");
    await respondWith(limited.scenario, 429, {
      status: 429,
      serviceErrorCode: 101,
      code: "TOO_MANY_REQUESTS",
      message: "Resource level throttle APPLICATION DAY limit for calls to this resource is reached.",
    });
    const out = await limited.execute("linkedin_get_userinfo", {});
    expect(out).toMatchObject({
      success: false,
      error_status: 429,
      retryable: true,
      error_message: "LinkedIn answered 429: Resource level throttle APPLICATION DAY limit for calls to this resource is reached.",
    });
    // Daily limits reset at midnight UTC.
    const midnight = Math.ceil((Math.floor(Date.now() / 86_400_000 + 1) * 86_400_000 - Date.now()) / 1000);
    expect(out.retry_after_seconds).toBeGreaterThan(0);
    expect(Math.abs(out.retry_after_seconds! - midnight)).toBeLessThan(30);
  });

  it("escapes every little-text reserved character", () => {
    expect(littleText("a|b{c}d@e[f]g(h)i<j>k#l\\m*n_o~p")).toBe("a\\|b\\{c\\}d\\@e\\[f\\]g\\(h\\)i\\<j\\>k\\#l\\\\m\\*n\\_o\\~p");
    expect(littleText("plain text, 100% ok!")).toBe("plain text, 100% ok!");
  });
});
