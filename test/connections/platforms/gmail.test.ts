// Gmail's tools on a connection made with Google's OAuth (the fake provider), against the fake of
// the Gmail API: the RFC 5322 message sent as base64url `raw`, searches newest first, metadata
// reads, label changes, and Google's error body.
import { describe, expect, it } from "vitest";
import { call, expectProblem } from "../../helpers/api";
import { connectedWithOAuth, expectCall, jsonOf, onlyRequestOf, requestsOf, respondWith } from "./platform-test-kit";

const fromBase64url = (text: string) => atob(text.replaceAll("-", "+").replaceAll("_", "/"));
const utf8 = (binary: string) => new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));

describe("Gmail", () => {
  it("asks Google for the gmail.modify scope offline, and sends an HTML email as a base64url MIME message with the token", async () => {
    const { authorize, execute, scenario } = await connectedWithOAuth("gmail");
    expect(authorize).toMatchObject({ scope: "https://www.googleapis.com/auth/gmail.modify", access_type: "offline" });
    const out = await execute("gmail_send_email", {
      to: ["ada@example.com", "grace@example.com"],
      cc: ["team@example.com"],
      subject: "Résumé of the launch 🚀",
      html: "<p>It went <b>well</b>.</p>",
      thread_id: "18c1",
    });
    expect(out, JSON.stringify(out)).toMatchObject({ success: true, result: { id: "18d0", thread_id: "18c1", label_ids: ["SENT"] } });

    const request = await onlyRequestOf(scenario);
    expectCall(request, "POST", "/gmail/v1/users/me/messages/send");
    expect(request.headers.authorization).toMatch(/^Bearer \S{10,}$/);
    const body = jsonOf(request);
    expect(Object.keys(body).sort()).toEqual(["raw", "threadId"]);
    expect(body.threadId).toBe("18c1");
    expect(body.raw).toMatch(/^[A-Za-z0-9_-]+$/);
    const [head, content] = fromBase64url(body.raw).split("\r\n\r\n");
    expect(head!.split("\r\n")).toEqual([
      "To: ada@example.com, grace@example.com",
      "Cc: team@example.com",
      `Subject: =?UTF-8?B?${btoa(String.fromCharCode(...new TextEncoder().encode("Résumé of the launch 🚀")))}?=`,
      "MIME-Version: 1.0",
      'Content-Type: text/html; charset="UTF-8"',
      "Content-Transfer-Encoding: base64",
    ]);
    expect(utf8(atob(content!.replaceAll("\r\n", "")))).toBe("<p>It went <b>well</b>.</p>");
  });

  it("refuses a subject with a line break (no header injection) before calling Gmail", async () => {
    const { person, scenario } = await connectedWithOAuth("gmail");
    const args = { to: ["a@example.com"], subject: "Hi\r\nBcc: everyone@example.com", text: "x" };
    await expectProblem(await call("/v1/tools/execute", { token: person.key, json: { name: "gmail_send_email", arguments: args } }), 422, "validation_failed");
    expect(await requestsOf(scenario)).toEqual([]);
  });

  it("searches messages newest first with paging, reads one's headers, and marks it read", async () => {
    const { execute, scenario } = await connectedWithOAuth("gmail");
    const first = await execute("gmail_list_messages", { query: "in:inbox", limit: 2 });
    expect(first.result).toEqual({
      messages: [
        { id: "18c3", thread_id: "18c3" },
        { id: "18c2", thread_id: "18c1" },
      ],
      next_cursor: "2",
    });
    const second = await execute("gmail_list_messages", { query: "in:inbox", limit: 2, cursor: "2" });
    expect(second.result).toEqual({ messages: [{ id: "18c1", thread_id: "18c1" }], next_cursor: null });
    const message = await execute("gmail_get_message", { message_id: "18c3" });
    expect(message.result).toEqual({
      id: "18c3",
      thread_id: "18c3",
      label_ids: ["INBOX", "UNREAD"],
      snippet: "About Invoice 42",
      from: "Grace <grace@example.com>",
      to: "me@example.com",
      subject: "Invoice 42",
      date: new Date(1763800300000).toUTCString(),
      received_at: new Date(1763800300000).toISOString(),
    });
    const read = await execute("gmail_modify_labels", { message_id: "18c3", remove_label_ids: ["UNREAD"] });
    expect(read.result).toEqual({ id: "18c3", label_ids: ["INBOX"] });

    const requests = await requestsOf(scenario);
    expectCall(requests[0]!, "GET", "/gmail/v1/users/me/messages", { q: "in:inbox", maxResults: "2" });
    expectCall(requests[1]!, "GET", "/gmail/v1/users/me/messages", { q: "in:inbox", maxResults: "2", pageToken: "2" });
    expectCall(requests[2]!, "GET", "/gmail/v1/users/me/messages/18c3", { format: "metadata" });
    expectCall(requests[3]!, "POST", "/gmail/v1/users/me/messages/18c3/modify");
    expect(jsonOf(requests[3]!)).toEqual({ addLabelIds: [], removeLabelIds: ["UNREAD"] });
  });

  it("an unknown message is Google's 404 notFound; a quota 403 rateLimitExceeded is worth retrying", async () => {
    const { execute, scenario } = await connectedWithOAuth("gmail");
    const missing = await execute("gmail_get_message", { message_id: "ffff" });
    expect(missing).toMatchObject({
      success: false,
      error_status: 404,
      retryable: false,
      error_message: "Gmail answered 404: Requested entity was not found.",
    });

    await respondWith(scenario, 403, {
      error: {
        code: 403,
        message: "User-rate limit exceeded.",
        errors: [{ message: "User-rate limit exceeded.", domain: "usageLimits", reason: "rateLimitExceeded" }],
        status: "PERMISSION_DENIED",
      },
    });
    const limited = await execute("gmail_list_messages", {});
    expect(limited).toMatchObject({ success: false, error_status: 403, retryable: true, error_message: "Gmail answered 403: User-rate limit exceeded." });
  });
});
