import type { MessageRecord, ToolCallRecord } from "../../conversations/messages";
import { raw } from "hono/html";
import { JsonBlock, formatTime } from "../common";
import { renderMarkdown } from "./markdown";

/**
 * The messages in order. An assistant's tool calls are shown in it, each in <details> with its
 * arguments and the result stored for it; a tool result no answer claims yet (a turn still
 * running) is shown on its own.
 */
export function MessageList(props: { messages: MessageRecord[] }) {
  const results = new Map(props.messages.filter((m) => m.role === "tool" && m.tool_call_id).map((m) => [m.tool_call_id!, m]));
  const claimed = new Set(props.messages.flatMap((m) => (m.role === "assistant" ? m.tools_called.map((call) => call.id) : [])));
  return (
    <ol class="messages" id="chat-log">
      {props.messages.map((message) => {
        if (message.role === "tool" && message.tool_call_id && claimed.has(message.tool_call_id)) return null;
        return <Message message={message} results={results} />;
      })}
    </ol>
  );
}

const WHO: Record<MessageRecord["role"], string> = { user: "You", assistant: "Assistant", tool: "Tool result", system: "System" };

function Message(props: { message: MessageRecord; results: Map<string, MessageRecord> }) {
  const { message } = props;
  // A turn a budget ended shows why, as a failed one does.
  const failed = message.status === "error" || message.status === "budget_exceeded";
  const stopped = message.status === "stopped";
  return (
    <li class={`message ${message.role}${failed ? " failed" : ""}${stopped ? " stopped" : ""}`} id={`message-${message.id}`}>
      <h3>
        {message.status === "summary" ? "Summary of earlier messages" : WHO[message.role]} <span class="meta">· {formatTime(message.created_at)}</span>
      </h3>
      {message.tools_called.map((call) => (
        <ToolCall call={call} result={props.results.get(call.id)} />
      ))}
      <MessageText message={message} />
      {failed && message.error_message ? <p class="error">{message.error_message}</p> : null}
      {stopped ? <p class="meta">Stopped before the answer was finished: this is what was written until then.</p> : null}
      {message.pending_approvals?.length ? (
        <p class="meta">
          Waiting for a person to approve{" "}
          {message.pending_approvals.map((id, i) => (
            <>
              {i > 0 ? ", " : ""}
              <a href={`/app/approvals/${id}`}>{id}</a>
            </>
          ))}
          ; the turn goes on by itself once decided.
        </p>
      ) : null}
      {message.role === "assistant" && message.provider ? (
        <p class="meta">
          {message.provider}
          {message.model ? ` · ${message.model}` : ""} · {message.tokens_used} tokens ·{" "}
          <a href={`/app/conversations/${message.conversation_id}/messages/${message.id}/trace`}>trace</a>
        </p>
      ) : null}
    </li>
  );
}

/** A tool result as JSON, the assistant's answer as rendered markdown, anything else as typed. */
function MessageText(props: { message: MessageRecord }) {
  const { role, content } = props.message;
  if (role === "tool") return <JsonBlock label="Result" text={content} />;
  if (!content) return null;
  // renderMarkdown escapes every tag and keeps only web and mail links (see markdown.ts).
  if (role === "assistant") return <div class="text markdown">{raw(renderMarkdown(content))}</div>;
  return <p class="text">{content}</p>;
}

function ToolCall(props: { call: ToolCallRecord; result?: MessageRecord }) {
  const { call } = props;
  return (
    <details>
      <summary>
        Tool call: {call.name} ({call.success ? "succeeded" : "failed"}, {call.duration_ms} ms)
      </summary>
      <JsonBlock label="Arguments" text={JSON.stringify(call.arguments)} />
      {props.result ? <JsonBlock label="Result" text={props.result.content} /> : null}
      {call.error_message ? <p class="error">{call.error_message}</p> : null}
    </details>
  );
}
