// Slack's threads, reactions and private channels against the fake of its Web API: query
// parameters for reads, JSON for writes, {ok: false, error} failures with status 200.
import { describe, expect, it } from "vitest";
import { connected, expectCall, failed, jsonOf, ok, onlyRequestOf, requestsOf } from "./platform-test-kit";

const setup = () => connected("slack", (hub) => ({ bot_token: hub.secret("xoxb-1-2-") }));

describe("Slack threads, reactions and private channels", () => {
  it("reads a thread a page at a time (conversations.replies)", async () => {
    const { hub, scenario, settings } = await setup();
    const first = await ok(hub, "slack_get_thread", { channel: "C0GENERAL", thread_ts: "1763800000.000100", limit: 2 });
    expect(first).toEqual({
      messages: [
        { ts: "1763800000.000100", user: "U0ADA", text: "Can someone check the invoice?", reply_count: 2 },
        { ts: "1763800050.000200", user: "U0GRACE", text: "On it", reply_count: null },
      ],
      next_cursor: "dGhyZWFk2",
    });
    const second = await ok(hub, "slack_get_thread", { channel: "C0GENERAL", thread_ts: "1763800000.000100", limit: 2, cursor: first.next_cursor });
    expect(second).toEqual({ messages: [{ ts: "1763800090.000300", user: "B0HUB", text: "Invoice sent", reply_count: null }], next_cursor: null });
    const [request, next] = await requestsOf(scenario);
    expectCall(request!, "GET", "/conversations.replies", { channel: "C0GENERAL", ts: "1763800000.000100", limit: "2" });
    expect(request!.headers.authorization).toBe(`Bearer ${settings.bot_token}`);
    expectCall(next!, "GET", "/conversations.replies", { channel: "C0GENERAL", ts: "1763800000.000100", limit: "2", cursor: "dGhyZWFk2" });

    const missing = await failed(hub, "slack_get_thread", { channel: "C0GENERAL", thread_ts: "1.2" });
    expect(missing.error_message).toBe("Slack answered thread_not_found");
  });

  it("adds a reaction with a JSON body; already_reacted (200, ok:false) fails without retrying", async () => {
    const { hub, scenario } = await setup();
    expect(await ok(hub, "slack_add_reaction", { channel: "C0GENERAL", timestamp: "1763800000.000100", name: "white_check_mark" })).toEqual({ added: true });
    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/reactions.add");
    expect(jsonOf(request)).toEqual({ channel: "C0GENERAL", timestamp: "1763800000.000100", name: "white_check_mark" });
    const again = await failed(hub, "slack_add_reaction", { channel: "C0GENERAL", timestamp: "1763800000.000100", name: "eyes" });
    expect(again).toMatchObject({ retryable: false, error_message: "Slack answered already_reacted" });
  });

  it("asks for private channels too with include_private", async () => {
    const { hub, scenario } = await setup();
    const out = await ok(hub, "slack_list_channels", { include_private: true });
    expect(out.channels[0]).toEqual({ id: "C0GENERAL", name: "general", is_member: true, is_private: false });
    expectCall(await onlyRequestOf(scenario), "GET", "/conversations.list", {
      limit: "100",
      exclude_archived: "true",
      types: "public_channel,private_channel",
    });
  });
});
