import type { AgentMemory } from "../db/schema";

/** A memory as the API and the memory_search tool show it; `source` names only what is known. */
export function presentMemory(memory: AgentMemory) {
  const source: { conversation_id?: number; execution_id?: string } = {};
  if (memory.conversationId !== null) source.conversation_id = memory.conversationId;
  if (memory.executionId !== null) source.execution_id = memory.executionId;
  return { id: memory.id, text: memory.text, created_at: memory.createdAt.toISOString(), source };
}
