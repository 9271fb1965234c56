import { Hono } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { MAX_MESSAGE_CHARS } from "../../conversations/schemas";
import { createConversation, deleteConversation, listConversations, presentConversation } from "../../conversations/service";
import { sendMessage } from "../../conversations/turns";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { conversationHref } from "./conversations-kit";
import { ConversationsListPage } from "./conversations-list";
import { conversationLivePages } from "./conversation-live.routes";
import { notFoundPage, renderConversation } from "./conversation-render";
import { formGuard, largeFormGuard, page, renderError, signedInForm, signedInPage, str } from "../kit";
// Conversation ids are positive whole numbers; anything else names no conversation.
import { positiveIdOf as idOf, messageOf, statusOf } from "../common";

const LISTED = 100;
const MAX_TITLE = 200;

/**
 * `/app/conversations`: the person's chats, and one chat's messages with a send form (the page's
 * script uses the live routes of conversation-live.routes.tsx instead). Everything goes through
 * the conversation services with the person's context, as the REST API does; someone else's
 * conversation is a 404.
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
      const csrf = await csrfToken(c, signedIn.ctx.actor.id);
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
        // Posted without script: waits for the whole turn (the script posts to …/send instead).
        await sendMessage(signedIn.ctx, id, { content, provider, origin: new URL(c.req.url).origin });
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
  .route("/", conversationLivePages);
