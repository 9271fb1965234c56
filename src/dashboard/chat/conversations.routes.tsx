import type { Context } from "hono";
import { Hono } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { MAX_MESSAGE_CHARS } from "../../conversations/schemas";
import { createConversation, deleteConversation, listConversations, presentConversation } from "../../conversations/service";
import { conversationDetail, conversationEvents, sendMessage } from "../../conversations/turns";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { listProviders } from "../../llm/providers";
import { conversationHref } from "./conversations-kit";
import { ConversationsListPage } from "./conversations-list";
import { ConversationPage, type ConversationPageProps } from "./conversations-page";
import { type SignedIn, formGuard, largeFormGuard, page, renderError, signedInContext, signedInForm, signedInPage, str } from "../kit";
// Conversation ids are positive whole numbers; anything else names no conversation.
import { type RefusalStatus, positiveIdOf as idOf, messageOf, renderNotFound, statusOf } from "../common";

const LISTED = 100;
const MAX_TITLE = 200;

type Extra = Partial<Pick<ConversationPageProps, "content" | "provider" | "error">>;

/**
 * `/app/conversations`: the person's chats, one chat's messages with a send form, and its live
 * events for the page's script. Everything goes through the conversation services with the
 * person's context, as the REST API does; someone else's conversation is a 404.
 */
export const conversationsPages = new Hono<AppEnv>()
  .get("/app/conversations", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    const rows = await listConversations(signedIn.ctx, LISTED);
    return page(c, <ConversationsListPage email={signedIn.email} csrf={signedIn.csrf} conversations={rows.map(presentConversation)} />);
  })
  .post("/app/conversations", formGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    if (str(form.step) !== "create") return renderError(c, "Unknown form action.", 400);
    const title = (str(form.title) ?? "").trim();
    if (title.length > MAX_TITLE) {
      const rows = await listConversations(signedIn.ctx, LISTED);
      const csrf = await csrfToken(c, signedIn.ctx.user.id);
      const error = `Keep the title to ${MAX_TITLE} characters.`;
      return page(c, <ConversationsListPage email={signedIn.email} csrf={csrf} conversations={rows.map(presentConversation)} error={error} />, 422);
    }
    const row = await createConversation(signedIn.ctx, title || null);
    return c.redirect(conversationHref(row.id), 303);
  })
  .get("/app/conversations/:id", async (c) => {
    const signedIn = await signedInPage(c);
    if (!signedIn) return c.redirect("/", 303);
    return renderConversation(c, signedIn, c.req.param("id"));
  })
  .post("/app/conversations/:id", largeFormGuard, async (c) => {
    const posted = await signedInForm(c);
    if ("response" in posted) return posted.response;
    const { signedIn, form } = posted;
    const id = idOf(c.req.param("id"));
    if (!id) return notFoundPage(c, signedIn);
    const step = str(form.step);
    try {
      if (step === "delete") {
        await deleteConversation(signedIn.ctx, id);
        return c.redirect("/app/conversations", 303);
      }
      if (step !== "send") return renderError(c, "Unknown form action.", 400);
      const content = (str(form.content) ?? "").trim();
      const provider = (str(form.provider) ?? "").trim() || null;
      const kept = { content: str(form.content) ?? "", ...(provider ? { provider } : {}) };
      if (!content || content.length > MAX_MESSAGE_CHARS) {
        return renderConversation(c, signedIn, id, { ...kept, error: `Write a message (at most ${MAX_MESSAGE_CHARS} characters).` }, 422);
      }
      try {
        // Waits for the whole turn; the script shows its progress meanwhile from the events below.
        await sendMessage(signedIn.ctx, id, { content, provider });
      } catch (error) {
        // Refused as the API would refuse it: a rate limit is 429, a busy conversation 409.
        if (error instanceof HubError && error.code !== "not_found")
          return renderConversation(c, signedIn, id, { ...kept, error: messageOf(error) }, statusOf(error));
        throw error;
      }
      return c.redirect(conversationHref(id), 303);
    } catch (error) {
      if (error instanceof HubError && error.code === "not_found") return notFoundPage(c, signedIn);
      throw error;
    }
  })
  .get("/app/conversations/:id/events", async (c) => {
    // Read by the page's EventSource: plain answers, no pages (over the person's limits,
    // signedInContext has the 429 page sent; over the conversation's streams, 429 rate_limited).
    const signedIn = await signedInContext(c);
    if (!signedIn) return c.text("Sign in first.", 401);
    const id = idOf(c.req.param("id"));
    if (!id) return c.text("No such conversation.", 404);
    try {
      const body = closedAfter(await conversationEvents(signedIn.ctx, id), LIVE_EVENTS_MS);
      return new Response(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no" } });
    } catch (error) {
      if (error instanceof HubError && error.code === "not_found") return c.text("No such conversation.", 404);
      throw error;
    }
  });

/**
 * A live-events stream lasts at most this long: the session is checked only when it opens, so a
 * stream must not outlive a sign-out for long. EventSource reconnects by itself (checked again).
 */
const LIVE_EVENTS_MS = 5 * 60_000;

function closedAfter(source: ReadableStream<Uint8Array>, ms: number): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (closed) return;
    closed = true;
    clearTimeout(timer ?? null);
    controller.close();
    reader.cancel().catch(() => undefined);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setTimeout(() => finish(controller), ms);
    },
    async pull(controller) {
      const { value, done } = await reader.read();
      if (closed) return;
      if (done) finish(controller);
      else controller.enqueue(value);
    },
    cancel(reason) {
      closed = true;
      clearTimeout(timer ?? null);
      return reader.cancel(reason);
    },
  });
}

function notFoundPage(c: Context<AppEnv>, signedIn: SignedIn) {
  return renderNotFound(c, signedIn, "This conversation does not exist, or it is not yours.", { href: "/app/conversations", label: "Back to conversations" });
}

/** The conversation's page (the not-found page when it is not the person's), with the providers they can pick. */
async function renderConversation(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  rawId: string | number | undefined,
  extra: Extra = {},
  status: 200 | RefusalStatus = 200,
) {
  const id = typeof rawId === "number" ? rawId : idOf(rawId);
  if (!id) return notFoundPage(c, signedIn);
  let conversation: Awaited<ReturnType<typeof conversationDetail>>;
  try {
    conversation = await conversationDetail(signedIn.ctx, id);
  } catch (error) {
    if (error instanceof HubError && error.code === "not_found") return notFoundPage(c, signedIn);
    throw error;
  }
  const choices = await listProviders(signedIn.ctx);
  const providers = choices.providers.filter((p) => p.configured);
  // A provider kept from a refused form is offered only if it is one the person has.
  const provider = providers.some((p) => p.id === extra.provider) ? extra.provider! : choices.default;
  return page(
    c,
    <ConversationPage
      email={signedIn.email}
      csrf={await csrfToken(c, signedIn.ctx.user.id)}
      conversation={conversation}
      providers={providers}
      provider={provider}
      content={extra.content}
      error={extra.error}
    />,
    status,
  );
}
