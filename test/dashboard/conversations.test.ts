import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";
import { connectModel, newScenario, openai, script } from "../conversations/helpers";
import { lastRoundText, parseSse, type SseEvent } from "../conversations/sse";
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

/** The page script's live send: the form posted to …/send, answered with the turn's events. */
async function sendLive(browser: Browser, id: number, content: string, provider = "local") {
  const path = `/app/conversations/${id}`;
  return browser.request(`${path}/send`, { form: { step: "send", content, provider, csrf_token: await browser.csrf(path) } });
}

/** An event stream read a little at a time: `until` reads on until its test holds (or the stream ends). */
function sseReader(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const events = () => parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2));
  return {
    async until(done: (events: SseEvent[]) => boolean = () => false) {
      while (!done(events())) {
        const { value, done: ended } = await reader.read();
        if (ended) break;
        text += decoder.decode(value, { stream: true });
      }
      return events();
    },
    cancel: () => reader.cancel(),
  };
}

const named = (name: string) => (events: SseEvent[]) => events.some((e) => e.event === name);

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
    expect(empty).toContain(`data-live-send="/app/conversations/${id}/send" data-live-events="/app/conversations/${id}/events"`);
    // Stop works without script: a form of its own, submitted by the button beside Send.
    expect(empty).toContain('<button type="submit" id="chat-stop" class="secondary" form="chat-stop-form">Stop answering</button>');
    expect(empty).toMatch(new RegExp(`<form id="chat-stop-form" method="post" action="/app/conversations/${id}/stop"><input type="hidden" name="csrf_token"`));
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
    expect(page).toMatch(/<h1 class="wrap" id="chat-title">math evaluate expression: 6 +7<\/h1>/);
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

describe("the chat page's live turn", () => {
  it("answers a send through the session with the turn's events: the user's message, tool calls, the answer's deltas, turn_finished", async () => {
    const browser = await signedIn();
    const id = await newConversation(browser);
    const response = await sendLive(browser, id, "math evaluate expression: 6 * 7");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toContain("text/event-stream");
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const events = await sseReader(response).until();
    expect(events.every((e) => e.id !== null)).toBe(true);
    expect(events.at(-1)!.event).toBe("turn_finished");
    const stored = events.filter((e) => e.event === "message").map((e) => e.data.message);
    expect(stored.map((m) => m.role)).toEqual(["user", "tool", "assistant"]);
    expect(stored[0]).toMatchObject({ content: "math evaluate expression: 6 * 7" });
    expect(events.find((e) => e.event === "tool_started")!.data).toMatchObject({ name: "math_evaluate", arguments: { expression: "6 * 7" } });
    expect(events.find((e) => e.event === "tool_finished")!.data).toMatchObject({ name: "math_evaluate", success: true });
    const answer = stored.at(-1)!;
    expect(lastRoundText(events)).toBe(answer.content);
    expect(events.at(-1)!.data).toEqual({ message_id: answer.id, status: "completed" });

    // The page renders the stored turn, carries the last event id, and no turn in progress.
    const page = await (await browser.request(`/app/conversations/${id}`)).text();
    expect(page).toContain(`id="message-${answer.id}"`);
    expect(page).toContain(`data-last-event-id="${events.at(-1)!.id}"`);
    expect(page).not.toContain("data-turn-after");
    expect(page).toContain('<p class="meta" id="chat-status" role="status"></p>');

    // The events from an id: what came after it, then ready; Last-Event-ID (EventSource's reconnect) wins over the query.
    const middle = events[2]!.id!;
    const replayed = await sseReader(await browser.request(`/app/conversations/${id}/events?last_event_id=${middle}`)).until(named("ready"));
    expect(replayed.filter((e) => e.event !== "ready")).toEqual(events.slice(3));
    expect(replayed.at(-1)).toMatchObject({ event: "ready", data: { status: "idle", last_event_id: events.at(-1)!.id } });
    const fromHeader = await sseReader(
      await browser.request(`/app/conversations/${id}/events?last_event_id=0`, { headers: { "Last-Event-ID": String(events.at(-2)!.id) } }),
    ).until(named("ready"));
    expect(fromHeader.map((e) => e.event)).toEqual(["turn_finished", "ready"]);
  });

  it("refuses a live send before any stream: without the CSRF token, empty, to someone else's conversation, with a provider not set up", async () => {
    const browser = await signedIn();
    const id = await newConversation(browser, "Guarded");
    const path = `/app/conversations/${id}`;
    expect((await browser.request(`${path}/send`, { form: { content: "hi", provider: "local" } })).status).toBe(403);
    const empty = await sendLive(browser, id, "  ");
    expect(empty.status).toBe(422);
    expect((await json(empty)).error).toContain("Write a message");
    const unconfigured = await sendLive(browser, id, "draft the launch email", "anthropic");
    expect(unconfigured.status).toBe(422);
    expect((await json(unconfigured)).error).toContain('Provider "anthropic" is not configured');
    // Nothing was stored.
    expect(await (await browser.request(path)).text()).toContain("No message yet");

    const stranger = await signedIn();
    const csrf = await stranger.csrf("/app/conversations");
    const theirs = await stranger.request(`${path}/send`, { form: { content: "hi", provider: "local", csrf_token: csrf } });
    expect(theirs.status).toBe(404);
    expect((await json(theirs)).error).toContain("does not exist");
    expect((await stranger.request(`${path}/stop`, { form: { csrf_token: csrf } })).status).toBe(404);
    expect((await stranger.request(`${path}/events?last_event_id=0`)).status).toBe(404);
    // Signed out: to the sign-in page.
    expect((await call(`${path}/send`, { form: { content: "hi" } })).status).toBe(303);
  });

  it("follows a running turn: the page says where its events start, Stop is a 303 and the answer is kept as stopped; 409 when idle", async () => {
    const browser = await signedIn();
    const key = await browser.apiKey();
    const scenario = newScenario("dashstop");
    await connectModel(key, scenario);
    const words = Array.from({ length: 40 }, (_, i) => `word${i + 1}`).join(" ");
    await script(scenario, [{ ...openai.text(words), chunk_delay_ms: 200 } as never]);
    const id = await newConversation(browser, "Slow");
    const path = `/app/conversations/${id}`;

    // Idle: nothing to stop, said on the page; no CSRF token, refused.
    expect((await browser.request(`${path}/stop`, { form: {} })).status).toBe(403);
    const idle = await browser.request(`${path}/stop`, { form: { csrf_token: await browser.csrf(path) } });
    expect(idle.status).toBe(409);
    expect(await idle.text()).toContain("Nothing to stop: the assistant is not answering now.");

    const live = sseReader(await sendLive(browser, id, "Count slowly", "openai"));
    const early = await live.until((events) => events.filter((e) => e.event === "delta").length >= 2);
    const firstId = early[0]!.id!;
    expect(early[0]).toMatchObject({ event: "status", data: { status: "processing" } });

    // Read mid-turn, the page shows the user's message and says the turn's events start after firstId - 1.
    const during = await (await browser.request(path)).text();
    expect(during).toContain(`data-turn-after="${firstId - 1}"`);
    expect(during).toContain("The assistant is answering");
    expect(during).toContain("Count slowly");
    // From there, the turn so far: its status, the user's message and the answer's first words.
    const followed = sseReader(await browser.request(`${path}/events?last_event_id=${firstId - 1}`));
    const caughtUp = await followed.until(named("ready"));
    await followed.cancel();
    expect(caughtUp.slice(0, 3).map((e) => e.event)).toEqual(["status", "message", "delta"]);
    expect(caughtUp[0]!.id).toBe(firstId);
    expect(caughtUp.at(-1)).toMatchObject({ event: "ready", data: { status: "processing" } });

    const stopped = await browser.request(`${path}/stop`, { form: { csrf_token: await browser.csrf(path) } });
    expect(stopped.status).toBe(303);
    expect(stopped.headers.get("Location")).toBe(path);
    const events = await live.until();
    expect(events.at(-1)).toMatchObject({ event: "turn_finished", data: { status: "stopped" } });
    const answer = events.filter((e) => e.event === "message").at(-1)!.data.message;
    expect(answer).toMatchObject({ role: "assistant", status: "stopped" });
    expect(answer.content).toMatch(/^word1 word2/);
    expect(answer.content.length).toBeLessThan(words.length);

    const after = await (await browser.request(path)).text();
    expect(after).toContain("Stopped before the answer was finished");
    expect(after).not.toContain("data-turn-after");
    expect((await browser.request(`${path}/stop`, { form: { csrf_token: await browser.csrf(path) } })).status).toBe(409);
  });
});
