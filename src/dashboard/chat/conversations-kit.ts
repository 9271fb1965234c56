/** A conversation's name on the page: its title, or its number until it has one. */
export const conversationName = (row: { id: number; title: string | null }) => row.title ?? `Conversation ${row.id}`;
export const conversationHref = (id: number) => `/app/conversations/${id}`;

/** The chat pages' own CSS: messages as cards, text kept as typed, the live answer's tool rows (scrolling JSON is the layout's). */
export const CHAT_STYLE = `
.wrap{overflow-wrap:anywhere}
.messages{list-style:none;padding:0;margin:0}
.message{border:1px solid #e5e7eb;border-left:4px solid #6b7280;border-radius:6px;padding:8px 12px;margin:12px 0;background:#fff}
.message.user{border-left-color:#1d4ed8}.message.assistant{border-left-color:#047857}.message.failed{border-left-color:#b91c1c}.message.stopped{border-left-color:#92400e}
.message h3{font-size:16px;margin:0 0 4px}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0}
.markdown{white-space:normal}.markdown>:first-child{margin-top:0}.markdown>:last-child{margin-bottom:0}.markdown p{white-space:pre-wrap}
.markdown pre{background:#f3f4f6;padding:8px;border-radius:4px;overflow-x:auto}.markdown code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.markdown table{border-collapse:collapse}.markdown th,.markdown td{border:1px solid #d1d5db;padding:2px 6px}
details{margin:8px 0;border:1px solid #d1d5db;border-radius:6px;padding:4px 8px}
summary{cursor:pointer;font-weight:600;overflow-wrap:anywhere}
#chat-message{max-width:none}
.chat-buttons{margin-top:12px}
.chat-buttons button:disabled{background:#e5e7eb;border-color:#6b7280;color:#374151;cursor:not-allowed}
.tool-rows{list-style:none;padding:0;margin:4px 0}
.tool-rows>li{border:1px solid #d1d5db;border-radius:6px;padding:4px 8px;margin:4px 0;overflow-wrap:anywhere}
.tool-rows details{border:none;padding:0;margin:4px 0 0}
`;
