/**
 * The bounds of agent memory (DESIGN §6.1), in one place: the tools' schemas, the service and the
 * routes read them, so the documented limits and the enforced ones cannot drift apart.
 */
export const MEMORY_LIMITS = {
  /** Memories one agent may hold; saving past it is refused until some are deleted. */
  perAgent: 10_000,
  /** Characters of one memory: a note, not a document. */
  textChars: 2_000,
  /** Characters of a search query (longer ones are refused, not cut, so the caller knows). */
  queryChars: 2_000,
  /** Results one search may ask for, and how many it gets when it names none. */
  maxSearchResults: 20,
  defaultSearchResults: 5,
  /** Memories put in a turn's system prompt, and the characters each may take there. */
  recalled: 3,
  recalledChars: 500,
} as const;
