import type { MessageRecord } from "../../conversations/messages";
import type { ProviderInfo } from "../../llm/providers";
import { formatTime } from "../common";
import { CHAT_STYLE, conversationHref, conversationName } from "./conversations-kit";
import { DeleteConversation } from "./conversations-list";
import { MessageList } from "./conversations-messages";
import { ErrorNote, Page } from "../layout";
import { LIVE_SCRIPT_PATH } from "../live-script";

export interface ConversationView {
  id: number;
  title: string | null;
  status: "idle" | "processing";
  message_count: number;
  updated_at: string;
  messages: MessageRecord[];
}

export interface ConversationPageProps {
  email: string;
  csrf: string;
  conversation: ConversationView;
  /** The providers the person can choose (configured ones), and which is chosen. */
  providers: ProviderInfo[];
  provider: string;
  /** The message typed, kept when sending was refused. */
  content?: string;
  error?: string;
}

/**
 * `/app/conversations/<id>`: the messages, a send form (posted plainly it waits for the answer;
 * with the script the turn's live events are shown while it runs), and the chat's other actions.
 */
export function ConversationPage(props: ConversationPageProps) {
  const { conversation, csrf } = props;
  const name = conversationName(conversation);
  const action = conversationHref(conversation.id);
  const shown = conversation.messages.length;
  return (
    <Page title={name} email={props.email} csrf={csrf} style={CHAT_STYLE} script={LIVE_SCRIPT_PATH}>
      <h1 class="wrap">{name}</h1>
      <p>
        <a href="/app/conversations">Back to conversations</a> · updated {formatTime(conversation.updated_at)}
        {conversation.status === "processing" ? " · answering now (reload to see the answer)" : ""}
      </p>
      <section aria-labelledby="chat-messages">
        <h2 id="chat-messages">Messages</h2>
        {shown === 0 ? <p>No message yet: send the first one below.</p> : null}
        {conversation.message_count > shown ? (
          <p>
            Showing the latest {shown} of {conversation.message_count} messages.
          </p>
        ) : null}
        <MessageList messages={conversation.messages} />
      </section>
      <section class="card" aria-labelledby="send-message">
        <h2 id="send-message">Send a message</h2>
        <ErrorNote message={props.error} />
        <form method="post" action={action} data-live-events={`${action}/events`}>
          <input type="hidden" name="csrf_token" value={csrf} />
          <input type="hidden" name="step" value="send" />
          <label for="chat-message">Message</label>
          <textarea id="chat-message" name="content" rows={4} required maxlength={12000} autocomplete="off">
            {props.content ?? ""}
          </textarea>
          <label for="chat-provider">Provider</label>
          <select id="chat-provider" name="provider">
            {props.providers.map((provider) => (
              <option value={provider.id} selected={provider.id === props.provider}>
                {provider.name}
              </option>
            ))}
          </select>
          <div>
            <button type="submit">Send</button>
          </div>
        </form>
      </section>
      {/* Filled by the script while a turn runs; hidden (and empty) without it. */}
      <section class="card" id="live-run" aria-labelledby="live-heading" hidden>
        <h2 id="live-heading">Live progress</h2>
        <p>While the assistant works on a message, its steps appear here.</p>
        <ol class="events" id="live-events" aria-live="polite" />
      </section>
      <section class="card" aria-labelledby="chat-actions">
        <h2 id="chat-actions">More</h2>
        <div class="actions">
          <form class="inline" method="post" action="/app/workflows">
            <input type="hidden" name="csrf_token" value={csrf} />
            <input type="hidden" name="step" value="from_conversation" />
            <input type="hidden" name="conversation_id" value={String(conversation.id)} />
            <button type="submit" class="secondary">
              Turn this chat into a workflow
            </button>
          </form>
          <DeleteConversation csrf={csrf} id={conversation.id} name={name} />
        </div>
      </section>
    </Page>
  );
}
