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
  status: "idle" | "processing" | "awaiting_approval";
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
  /** Where the conversation's event log stood when its messages were read (conversationWithEvents). */
  events: { last_event_id: number; turn_started_after: number | null };
  /** The message typed, kept when sending was refused. */
  content?: string;
  error?: string;
}

/**
 * `/app/conversations/<id>`: the messages, a send form and a stop button, and the chat's other
 * actions. Posted plainly, sending waits for the answer and Stop is a form of its own. With the
 * page's script, sending streams the turn into the list (the answer as it is written, tool calls
 * as they run) and a turn already running when the page loads is followed from its first event:
 * the form carries where the event log stood when these messages were read.
 */
export function ConversationPage(props: ConversationPageProps) {
  const { conversation, csrf, events } = props;
  const name = conversationName(conversation);
  const action = conversationHref(conversation.id);
  const shown = conversation.messages.length;
  const answering = conversation.status === "processing";
  return (
    <Page title={name} email={props.email} csrf={csrf} style={CHAT_STYLE} script={LIVE_SCRIPT_PATH}>
      <h1 class="wrap" id="chat-title">
        {name}
      </h1>
      <p>
        <a href="/app/conversations">Back to conversations</a> · updated {formatTime(conversation.updated_at)}
      </p>
      {/* Replaced as a whole by the script once a turn has finished: the server renders the stored answer. */}
      <section id="chat-history" aria-labelledby="chat-messages">
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
        <p class="meta" id="chat-status" role="status">
          {answering ? "The assistant is answering: reload the page to see its answer, or stop it." : ""}
        </p>
        <form
          method="post"
          action={action}
          id="chat-send-form"
          data-conversation={String(conversation.id)}
          data-live-send={`${action}/send`}
          data-live-events={`${action}/events`}
          data-last-event-id={String(events.last_event_id)}
          data-turn-after={answering ? String(events.turn_started_after ?? events.last_event_id) : undefined}
        >
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
          <div class="actions chat-buttons">
            <button type="submit" id="chat-send">
              Send
            </button>
            {/* Submits the stop form below (forms cannot nest), so it works without script too. */}
            <button type="submit" id="chat-stop" class="secondary" form="chat-stop-form">
              Stop answering
            </button>
          </div>
        </form>
        <form id="chat-stop-form" method="post" action={`${action}/stop`}>
          <input type="hidden" name="csrf_token" value={csrf} />
        </form>
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
