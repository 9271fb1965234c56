import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { Browser, newEmail } from "./browser";

async function signedIn() {
  const browser = new Browser();
  await browser.register(newEmail());
  return browser;
}

/** "New conversation" on the list page; answers the new conversation's id. */
async function newConversation(browser: Browser, title = "") {
  const created = await browser.request("/app/conversations", { form: { step: "create", title, csrf_token: await browser.csrf("/app/conversations") } });
  expect(created.status).toBe(303);
  const location = created.headers.get("Location")!;
  expect(location).toMatch(/^\/app\/conversations\/\d+$/);
  return Number(location.split("/").pop());
}

async function send(browser: Browser, id: number, content: string, provider = "local") {
  const path = `/app/conversations/${id}`;
  return browser.request(path, { form: { step: "send", content, provider, csrf_token: await browser.csrf(path) } });
}

/** Reads an event stream until `until` shows up (or the stream ends), then lets it go. */
async function readUntil(response: Response, until: RegExp) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!until.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  await reader.cancel();
  return text;
}

describe("the chat pages", () => {
  it("sends a message with the local provider: the page shows the tool call, its arguments and result, and the answer", async () => {
    const browser = await signedIn();
    const id = await newConversation(browser);
    const empty = await (await browser.request(`/app/conversations/${id}`)).text();
    expect(empty).toContain('<label for="chat-message">Message</label>');
    expect(empty).toContain('<label for="chat-provider">Provider</label>');
    // Only providers the person has; their default chosen.
    expect(empty).toMatch(/<option value="local" selected="">Local \(offline tool router, no language model\)<\/option>/);
    expect(empty).not.toContain('value="openai"');
    expect(empty).toContain(`data-live-events="/app/conversations/${id}/events"`);
    expect(empty).toMatch(
      new RegExp(
        `<form class="inline" method="post" action="/app/workflows"><input type="hidden" name="csrf_token" value="[^"]+"/><input type="hidden" name="step" value="from_conversation"/><input type="hidden" name="conversation_id" value="${id}"/><button type="submit" class="secondary">Turn this chat into a workflow</button></form>`,
      ),
    );

    const sent = await send(browser, id, "math evaluate expression: 6 * 7");
    expect(sent.status).toBe(303);
    expect(sent.headers.get("Location")).toBe(`/app/conversations/${id}`);
    const page = await (await browser.request(`/app/conversations/${id}`)).text();
    // Titled after the first message (the service drops Markdown marks such as "*").
    expect(page).toMatch(/<h1 class="wrap">math evaluate expression: 6 +7<\/h1>/);
    expect(page).toMatch(/<summary>Tool call: math_evaluate \(succeeded, \d+ ms\)<\/summary>/);
    expect(page).toContain("&quot;expression&quot;: &quot;6 * 7&quot;");
    expect(page).toContain("&quot;result&quot;: 42");
    // The answer itself, after the tool call, by the local provider: its markdown rendered, not shown raw.
    expect(page).toMatch(/<div class="text markdown"><p>Ran <code>math_evaluate<\/code>: [^<]*42[^<]*<\/p>/);
    expect(page).toContain("<p><em>(Answered by the local provider, which runs tools but writes no prose; configure a model provider for that.)</em></p>");
    expect(page).not.toContain("`math_evaluate`");
    expect(page).toContain("local · local-tool-router");
    // The tool result is shown inside the answer's tool call, not again on its own.
    expect(page.match(/<li class="message /g)).toHaveLength(2);

    const list = await (await browser.request("/app/conversations")).text();
    expect(list).toMatch(new RegExp(`<a href="/app/conversations/${id}">math evaluate expression: 6 +7</a>`));
    expect(list).toMatch(/aria-label="Delete math evaluate expression: 6 +7"/);
  });

  it("refuses an empty message and an unconfigured provider on the page, keeping what was typed", async () => {
    const browser = await signedIn();
    const id = await newConversation(browser, "Launch plan");
    const empty = await send(browser, id, "   ");
    expect(empty.status).toBe(422);
    expect(await empty.text()).toContain("Write a message");
    const refused = await send(browser, id, "draft the launch email", "anthropic");
    expect(refused.status).toBe(422);
    const page = await refused.text();
    expect(page).toMatch(/<p class="error" role="alert">Provider &quot;anthropic&quot; is not configured/);
    expect(page).toContain(">draft the launch email</textarea>");
    // Nothing was stored.
    expect(page).toContain("No message yet");
  });

  it("streams the conversation's live events to its owner only", async () => {
    const browser = await signedIn();
    const id = await newConversation(browser, "Live");
    const events = await browser.request(`/app/conversations/${id}/events`);
    expect(events.status).toBe(200);
    expect(events.headers.get("Content-Type")).toContain("text/event-stream");
    const listening = readUntil(events, /"role":"assistant"/);
    await send(browser, id, "math evaluate expression: 2 + 2");
    const text = await listening;
    const names = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(names[0]).toBe("ready");
    expect(names).toEqual(expect.arrayContaining(["status", "tool_started", "message"]));

    const stranger = await signedIn();
    expect((await stranger.request(`/app/conversations/${id}/events`)).status).toBe(404);
    expect((await call(`/app/conversations/${id}/events`)).status).toBe(401);
  });

  it("shows someone else's conversation as not found, and lets no one else send to or delete it", async () => {
    const owner = await signedIn();
    const id = await newConversation(owner, "Private plans");
    const stranger = await signedIn();
    const page = await stranger.request(`/app/conversations/${id}`);
    expect(page.status).toBe(404);
    expect(await page.text()).not.toContain("Private plans");
    expect((await stranger.request("/app/conversations/not-a-number")).status).toBe(404);
    const csrf = await stranger.csrf("/app/conversations");
    const path = `/app/conversations/${id}`;
    expect((await stranger.request(path, { form: { step: "send", content: "hi", provider: "local", csrf_token: csrf } })).status).toBe(404);
    expect((await stranger.request(path, { form: { step: "delete", csrf_token: csrf } })).status).toBe(404);
    expect(await (await stranger.request("/app/conversations")).text()).not.toContain("Private plans");
    expect(await (await owner.request(path)).text()).toContain("Private plans");
  });

  it("refuses forms without the CSRF token, and deletes a conversation", async () => {
    const browser = await signedIn();
    const id = await newConversation(browser, "Short-lived");
    const path = `/app/conversations/${id}`;
    expect((await browser.request(path, { form: { step: "send", content: "hi", provider: "local" } })).status).toBe(403);
    expect((await browser.request(path, { form: { step: "delete" } })).status).toBe(403);
    expect((await browser.request("/app/conversations", { form: { step: "create" } })).status).toBe(403);

    const deleted = await browser.request(path, { form: { step: "delete", csrf_token: await browser.csrf(path) } });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("Location")).toBe("/app/conversations");
    expect((await browser.request(path)).status).toBe(404);
    expect(await (await browser.request("/app/conversations")).text()).not.toContain("Short-lived");
    // Signed out, the pages send the person to sign in.
    expect((await call("/app/conversations")).status).toBe(303);
  });
});
