import { eq } from "drizzle-orm";
import { createDb } from "../db/client";
import { conversations } from "../db/schema";
import { loggableError } from "../lib/safe-log";
import type { NewMessage } from "./messages";

/** The answer a turn cut short by a restart gets: an error that keeps the calls that finished. */
export const interruptedAnswer = (calls: NewMessage["tools_called"]): NewMessage => ({
  role: "assistant",
  content: "",
  status: "error",
  tokens_used: 0,
  tools_called: calls,
  tool_call_id: null,
  error_message: "The turn was cut short when the hub restarted; the tool calls that finished are kept. Send the message again to go on.",
  provider: null,
  model: null,
});

/** Sets the conversation's listing idle again (its D1 index); a failure is logged, not thrown. */
export async function markListingIdle(db: D1Database, conversationId: number, messageCount: number): Promise<void> {
  await createDb(db)
    .update(conversations)
    .set({ state: "idle", messageCount, updatedAt: new Date() })
    .where(eq(conversations.id, conversationId))
    .catch((error) => console.error(JSON.stringify({ level: "error", message: "conversation index update failed", error: loggableError(error) })));
}
