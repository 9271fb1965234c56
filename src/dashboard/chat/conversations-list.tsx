import { DataTable, PostButton, formatTime } from "../common";
import { CHAT_STYLE, conversationHref, conversationName } from "./conversations-kit";
import { ErrorNote, Page } from "../layout";

export interface ConversationRow {
  id: number;
  title: string | null;
  state: "idle" | "processing" | "awaiting_approval";
  message_count: number;
  last_message_preview: string | null;
  updated_at: string;
}

/** `/app/conversations`: the person's chats, most recently updated first, and a button for a new one. */
export function ConversationsListPage(props: { email: string; csrf: string; conversations: ConversationRow[]; error?: string }) {
  return (
    <Page title="Chat" email={props.email} csrf={props.csrf} style={CHAT_STYLE}>
      <h1>Chat</h1>
      <p>Ask the hub's assistant for something; it calls your tools to do it. Each conversation keeps its own history.</p>
      <ErrorNote message={props.error} />
      <section class="card" aria-labelledby="new-chat">
        <h2 id="new-chat">Start a conversation</h2>
        <form method="post" action="/app/conversations">
          <input type="hidden" name="csrf_token" value={props.csrf} />
          <label for="chat-title">Title (optional: the first message names it otherwise)</label>
          <input id="chat-title" type="text" name="title" maxlength={200} />
          <button type="submit" name="step" value="create">
            New conversation
          </button>
        </form>
      </section>
      <section class="card" aria-labelledby="your-chats">
        <h2 id="your-chats">Your conversations</h2>
        {props.conversations.length === 0 ? (
          <p>No conversation yet.</p>
        ) : (
          <DataTable
            rows={props.conversations}
            columns={[
              {
                label: "Title",
                className: "wrap",
                cell: (row) => (
                  <>
                    <a href={conversationHref(row.id)}>{conversationName(row)}</a>
                    {row.state === "processing" ? " (answering…)" : row.state === "awaiting_approval" ? " (waiting for approval)" : ""}
                    {row.last_message_preview ? <div>{row.last_message_preview.slice(0, 120)}</div> : null}
                  </>
                ),
              },
              { label: "Updated", cell: (row) => formatTime(row.updated_at) },
              { label: "Messages", cell: (row) => row.message_count },
              { label: "Delete", hideLabel: true, cell: (row) => <DeleteConversation csrf={props.csrf} id={row.id} name={conversationName(row)} /> },
            ]}
          />
        )}
      </section>
    </Page>
  );
}

export function DeleteConversation(props: { csrf: string; id: number; name: string }) {
  return (
    <PostButton action={conversationHref(props.id)} csrf={props.csrf} className="danger" step="delete" label="Delete" ariaLabel={`Delete ${props.name}`} />
  );
}
