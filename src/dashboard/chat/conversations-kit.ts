/** A conversation's name on the page: its title, or its number until it has one. */
export const conversationName = (row: { id: number; title: string | null }) => row.title ?? `Conversation ${row.id}`;
export const conversationHref = (id: number) => `/app/conversations/${id}`;
export const shortTime = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

/** The chat pages' own CSS: messages as cards, text kept as typed, JSON scrolling inside its box. */
export const CHAT_STYLE = `
select{width:100%;max-width:420px;padding:8px;border:1px solid #6b7280;border-radius:4px;font-size:16px;background:#fff}
.wrap{overflow-wrap:anywhere}
.messages{list-style:none;padding:0;margin:0}
.message{border:1px solid #e5e7eb;border-left:4px solid #6b7280;border-radius:6px;padding:8px 12px;margin:12px 0;background:#fff}
.message.user{border-left-color:#1d4ed8}.message.assistant{border-left-color:#047857}.message.failed{border-left-color:#b91c1c}
.message h3{font-size:16px;margin:0 0 4px}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0}
.meta{color:#374151;font-size:14px;margin:4px 0}
details{margin:8px 0;border:1px solid #d1d5db;border-radius:6px;padding:4px 8px}
summary{cursor:pointer;font-weight:600;overflow-wrap:anywhere}
.scroll{overflow-x:auto;max-width:100%}.scroll pre{margin:0 0 8px;padding:8px;background:#f3f4f6;border-radius:6px}
ol.events{padding-left:24px;overflow-wrap:anywhere}
.field-error{color:#b91c1c;font-weight:600}
#chat-message{max-width:none}
.actions{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center}.actions button{margin:0}
`;
