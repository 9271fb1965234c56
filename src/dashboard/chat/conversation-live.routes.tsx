import type { Context } from "hono";
import { Hono } from "hono";
import { MAX_MESSAGE_CHARS } from "../../conversations/schemas";
import { conversationEvents, sendMessageStreaming, stopTurn } from "../../conversations/turns";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { positiveIdOf as idOf, messageOf, statusOf } from "../common";
import { formGuard, largeFormGuard, signedInContext, signedInForm, str } from "../kit";
import { closedAfter } from "./closed-after";
import { notFoundPage, renderConversation } from "./conversation-render";
import { conversationHref } from "./conversations-kit";

/**
 * A dashboard stream lasts at most this long: the session is checked only when it opens. The
 * page's script goes on from the last event it saw (EventSource reconnects by itself).
 */
const LIVE_MS = 5 * 60_000;
const NO_SUCH = "This conversation does not exist, or it is not yours.";

/**
 * The chat page's live side, for its script: a send answered with the turn as server-sent events,
 * the conversation's events from a given id, and a stop. The API's routes take bearer credentials
 * only; these take the session with the dashboard's guards (same origin, CSRF token on posts, the
 * person's limits) and call the same services, so ownership and refusals are the API's.
 */
export const conversationLivePages = new Hono<AppEnv>()
  .post("/app/conversations/:id/send", largeFormGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const id = idOf(c.req.param("id"));
    if (!id) return c.json({ error: NO_SUCH }, 404);
    const content = (str(form.content) ?? "").trim();
    const provider = (str(form.provider) ?? "").trim() || null;
    if (!content || content.length > MAX_MESSAGE_CHARS) return c.json({ error: `Write a message (at most ${MAX_MESSAGE_CHARS} characters).` }, 422);
    try {
      // Refusals (someone else's conversation, a provider not set up) come before the stream, as JSON.
      return eventStream(closedAfter(await sendMessageStreaming(signedIn.ctx, id, { content, provider, origin: new URL(c.req.url).origin }), LIVE_MS));
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      return c.json({ error: error.code === "not_found" ? NO_SUCH : messageOf(error) }, statusOf(error));
    }
  })
  .get("/app/conversations/:id/events", async (c) => {
    // Read by the page's EventSource: plain answers, no pages (over the person's limits,
    // signedInContext has the 429 page sent; over the conversation's streams, 429 rate_limited).
    const signedIn = await signedInContext(c);
    if (!signedIn) return c.text("Sign in first.", 401);
    const id = idOf(c.req.param("id"));
    if (!id) return c.text(NO_SUCH, 404);
    try {
      return eventStream(closedAfter(await conversationEvents(signedIn.ctx, id, lastEventIdOf(c)), LIVE_MS));
    } catch (error) {
      if (error instanceof HubError && error.code === "not_found") return c.text(NO_SUCH, 404);
      throw error;
    }
  })
  .post("/app/conversations/:id/stop", formGuard, async (c) => {
    // A plain form too: without script it is posted from the page, and answers with the page.
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn } = posted;
    const id = idOf(c.req.param("id"));
    if (!id) return notFoundPage(c, signedIn);
    try {
      await stopTurn(signedIn.ctx, id);
      return c.redirect(conversationHref(id), 303);
    } catch (error) {
      if (!(error instanceof HubError)) throw error;
      if (error.code === "not_found") return notFoundPage(c, signedIn);
      if (error.code === "conflict") return renderConversation(c, signedIn, id, { error: "Nothing to stop: the assistant is not answering now." }, 409);
      throw error;
    }
  });

const eventStream = (body: ReadableStream<Uint8Array>) =>
  new Response(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no" } });

/** Where to resume: the Last-Event-ID header (EventSource's own reconnects) wins over `?last_event_id=`. */
function lastEventIdOf(c: Context<AppEnv>): number | undefined {
  for (const value of [c.req.header("Last-Event-ID"), c.req.query("last_event_id")]) {
    const text = value?.trim();
    if (text && /^\d{1,15}$/.test(text)) return Number(text);
  }
  return undefined;
}
