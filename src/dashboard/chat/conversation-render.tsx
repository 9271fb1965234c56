import type { Context } from "hono";
import { csrfToken } from "../../auth/browser-session";
import { conversationWithEvents } from "../../conversations/turns";
import { HubError } from "../../core/errors";
import type { AppEnv } from "../../http/app-env";
import { listProviders } from "../../llm/providers";
import { type RefusalStatus, positiveIdOf as idOf, renderNotFound } from "../common";
import { type SignedIn, page } from "../kit";
import { ConversationPage, type ConversationPageProps } from "./conversations-page";

export type Extra = Partial<Pick<ConversationPageProps, "content" | "provider" | "error">>;

export function notFoundPage(c: Context<AppEnv>, signedIn: SignedIn) {
  return renderNotFound(c, signedIn, "This conversation does not exist, or it is not yours.", { href: "/app/conversations", label: "Back to conversations" });
}

/**
 * The conversation's page (the not-found page when it is not the person's), with the providers
 * they can pick and where its event log stood when its messages were read.
 */
export async function renderConversation(
  c: Context<AppEnv>,
  signedIn: SignedIn,
  rawId: string | number | undefined,
  extra: Extra = {},
  status: 200 | RefusalStatus = 200,
) {
  const id = typeof rawId === "number" ? rawId : idOf(rawId);
  if (!id) return notFoundPage(c, signedIn);
  let conversation: Awaited<ReturnType<typeof conversationWithEvents>>;
  try {
    conversation = await conversationWithEvents(signedIn.ctx, id);
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
      csrf={await csrfToken(c, signedIn.ctx.actor.id)}
      conversation={conversation.detail}
      events={conversation.events}
      providers={providers}
      provider={provider}
      content={extra.content}
      error={extra.error}
    />,
    status,
  );
}
