// X's tools on a connection made with OAuth 2.0 and PKCE (the fake provider, the client
// authenticating with HTTP Basic), against the fake of the X API v2: the account, posts created
// (replies, quotes), read, listed newest first a page at a time and deleted, the 'new post' poll,
// and X's refusals: 403 duplicate content, 200 "Not Found Error", 401, 429 with x-rate-limit-*.
import { describe, expect, it } from "vitest";
import { x } from "../../../src/connections/platforms/x";
import { providerStats } from "../oauth-helpers";
import { connectedWithOAuth, expectCall, jsonOf, onlyRequestOf, requestsOf, respondWith } from "./platform-test-kit";

const ME = "1580661436132757506";

describe("X", () => {
  it("asks for the posting scopes, authenticates at the token endpoint with HTTP Basic, and reads the account", async () => {
    const { authorize, clientId, execute, scenario } = await connectedWithOAuth("x");
    expect(authorize).toMatchObject({ scope: "tweet.read tweet.write users.read offline.access", code_challenge_method: "S256" });
    expect((await providerStats(clientId)).token_auth).toEqual(["client_secret_basic"]);
    const out = await execute("x_get_me", {});
    expect(out, JSON.stringify(out)).toMatchObject({
      success: true,
      result: {
        id: ME,
        name: "Ada Lovelace",
        username: "ada_hub",
        description: "Analytical engines.",
        followers_count: 120,
        following_count: 80,
        post_count: 3,
      },
    });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "GET", "/2/users/me", { "user.fields": "description,public_metrics" });
    expect(request.headers.authorization).toMatch(/^Bearer at_\S{10,}$/);
  });

  it("posts, replies quoting, reads a post and deletes it", async () => {
    const { execute, scenario } = await connectedWithOAuth("x");
    const created = await execute("x_create_post", { text: "Hello from the hub" });
    expect(created, JSON.stringify(created)).toMatchObject({
      success: true,
      result: { id: "1870000000000000001", text: "Hello from the hub", url: "https://x.com/i/web/status/1870000000000000001" },
    });
    const id = created.result.id as string;
    const reply = await execute("x_create_post", {
      text: "A reply",
      in_reply_to_post_id: id,
      quote_post_id: "1860000000000000001",
      reply_settings: "following",
    });
    expect(reply).toMatchObject({ success: true, result: { text: "A reply" } });
    const read = await execute("x_get_post", { post_id: reply.result.id });
    expect(read.result).toEqual({
      id: reply.result.id,
      text: "A reply",
      created_at: "2026-11-27T12:00:00.000Z",
      author_id: ME,
      conversation_id: id,
      like_count: 7,
      repost_count: 2,
      reply_count: 1,
      quote_count: 0,
    });
    expect(await execute("x_delete_post", { post_id: id })).toMatchObject({ success: true, result: { id, deleted: true } });

    const [first, second, lookup, remove] = await requestsOf(scenario);
    expectCall(first!, "POST", "/2/tweets");
    expect(first!.headers.authorization).toMatch(/^Bearer at_/);
    expect(jsonOf(first!)).toEqual({ text: "Hello from the hub" });
    expect(jsonOf(second!)).toEqual({
      text: "A reply",
      reply: { in_reply_to_tweet_id: id },
      quote_tweet_id: "1860000000000000001",
      reply_settings: "following",
    });
    expectCall(lookup!, "GET", `/2/tweets/${reply.result.id}`, { "tweet.fields": "created_at,author_id,conversation_id,public_metrics" });
    expectCall(remove!, "DELETE", `/2/tweets/${id}`);
  });

  it("lists the account's posts newest first, a page at a time, and declares the 'new post' poll on it", async () => {
    const { execute, scenario } = await connectedWithOAuth("x");
    await execute("x_create_post", { text: "Newest" });
    const page = await execute("x_list_my_posts", { max_results: 5 });
    expect(page.result.user_id).toBe(ME);
    expect(page.result.posts.map((p: { text: string }) => p.text)).toEqual(["Newest", "Third post", "Second post", "First post"]);
    expect(page.result.posts[1]).toEqual({ id: "1860000000000000003", text: "Third post", created_at: "2026-11-20T10:00:00.000Z" });
    expect(page.result.next_cursor).toBeNull();

    const small = await execute("x_list_my_posts", { user_id: ME, max_results: 5, exclude: ["replies", "retweets"] });
    expect(small.result.posts).toHaveLength(4);
    const requests = await requestsOf(scenario);
    expectCall(requests[1]!, "GET", "/2/users/me");
    expectCall(requests[2]!, "GET", `/2/users/${ME}/tweets`, { max_results: "5", "tweet.fields": "created_at" });
    expectCall(requests[3]!, "GET", `/2/users/${ME}/tweets`, { max_results: "5", exclude: "replies,retweets", "tweet.fields": "created_at" });

    // Six posts: a page of five, then the last one with the cursor X gave.
    await execute("x_create_post", { text: "Fifth" });
    await execute("x_create_post", { text: "Sixth" });
    const full = await execute("x_list_my_posts", { user_id: ME, max_results: 5 });
    expect(full.result.posts).toHaveLength(5);
    expect(full.result.next_cursor).toEqual(expect.any(String));
    const rest = await execute("x_list_my_posts", { user_id: ME, max_results: 5, cursor: full.result.next_cursor });
    expect(rest.result).toMatchObject({ posts: [{ text: "First post" }], next_cursor: null });
    expect((await requestsOf(scenario)).at(-1)!.query).toEqual({ max_results: "5", pagination_token: full.result.next_cursor, "tweet.fields": "created_at" });

    expect(x.polls).toEqual([{ title: "New post", action: "list_my_posts", arguments: { max_results: 20 }, items_path: "posts", id_path: "id" }]);
  });

  it("reads X's refusals: duplicate content (403), a missing post (200 Not Found Error), a refused token (401), a rate limit (429)", async () => {
    const { execute, scenario } = await connectedWithOAuth("x");
    expect(await execute("x_create_post", { text: "Third post" })).toMatchObject({
      success: false,
      error_status: 403,
      retryable: false,
      error_message: "X answered 403: You are not allowed to create a Tweet with duplicate content.",
    });
    expect(await execute("x_get_post", { post_id: "20" })).toMatchObject({
      success: false,
      retryable: false,
      error_message: "X answered Not Found Error: Could not find tweet with id: [20].",
    });
    expect(await execute("x_list_my_posts", { user_id: "42" })).toMatchObject({
      success: false,
      error_message: "X answered Not Found Error: Could not find user with id: [42].",
    });
    const bad = await execute("x_list_my_posts", { user_id: ME, cursor: "bm90LWEtcGFnZQ" });
    expect(bad).toMatchObject({
      success: false,
      error_status: 400,
      error_message: "X answered 400: Invalid Request: The `pagination_token` query parameter value [bm90LWEtcGFnZQ] is not valid",
    });

    await respondWith(scenario, 401, { title: "Unauthorized", type: "about:blank", status: 401, detail: "Unauthorized" });
    expect(await execute("x_get_me", {})).toMatchObject({ success: false, error_status: 401, retryable: false, error_message: "X answered 401: Unauthorized" });

    const limited = await connectedWithOAuth("x");
    const reset = String(Math.floor(Date.now() / 1000) + 900);
    await respondWith(
      limited.scenario,
      429,
      { title: "Too Many Requests", detail: "Too Many Requests", type: "about:blank", status: 429 },
      { "x-rate-limit-limit": "100", "x-rate-limit-remaining": "0", "x-rate-limit-reset": reset },
    );
    expect(await limited.execute("x_create_post", { text: "Busy" })).toMatchObject({
      success: false,
      error_status: 429,
      retryable: true,
      error_message: "X answered 429: Too Many Requests",
    });
  });
});
