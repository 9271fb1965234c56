import { z } from "@hono/zod-openapi";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { inputJsonSchema } from "../lib/json-schema";
import { loggableError } from "../lib/safe-log";
import { agentSettingsOf } from "../llm/agent-config";
import type { ToolSpec } from "../llm/types";
import { MEMORY_LIMITS } from "./limits";
import { type MemorySource, memoryOwner, saveMemory, searchMemories } from "./service";

/**
 * The two tools an agent with `agent_config.memory: true` gets in its chat turns and `agent`
 * steps (DESIGN §6.1). They are not catalog tools: they act on the agent the turn or step runs
 * for, which the driver names (MemoryToolScope), never on one the model names.
 */
export const MEMORY_TOOL_NAMES = ["memory_save", "memory_search"] as const;
export type MemoryToolName = (typeof MEMORY_TOOL_NAMES)[number];

export const isMemoryTool = (name: string): name is MemoryToolName => (MEMORY_TOOL_NAMES as readonly string[]).includes(name);

const chars = (n: number) => n.toLocaleString("en");

const SaveArgs = z.object({
  text: z
    .string()
    .min(1)
    .max(MEMORY_LIMITS.textChars, `A memory holds at most ${chars(MEMORY_LIMITS.textChars)} characters; save a shorter note.`)
    .describe("One self-contained note, understandable without this conversation."),
});

const SearchArgs = z.object({
  query: z.string().min(1).max(MEMORY_LIMITS.queryChars).describe("Words to look for; memories holding more of them, and rarer ones, rank higher."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MEMORY_LIMITS.maxSearchResults)
    .optional()
    .describe(`How many memories to return (default ${MEMORY_LIMITS.defaultSearchResults}).`),
});

const SPECS: ToolSpec[] = [
  {
    name: "memory_save",
    description:
      `Remember something for this agent's later conversations and runs: a preference, a decision, a fact about a person or a task. ` +
      `One short note per call (at most ${chars(MEMORY_LIMITS.textChars)} characters); memory_search finds it again.`,
    inputSchema: inputJsonSchema(SaveArgs),
  },
  {
    name: "memory_search",
    description:
      "Search what this agent saved with memory_save. Matches words (an English word's other forms too: send, sending, sent), not meaning; best matches first, with when each was saved.",
    inputSchema: inputJsonSchema(SearchArgs),
  },
];

/** The memory tools' definitions, for a model request of an agent whose agent_config.memory is true. */
export function memoryToolSpecs(): ToolSpec[] {
  return SPECS;
}

/** The agent a turn or step runs for, and where a memory saved by it comes from. */
export interface MemoryToolScope extends MemorySource {
  agentId: string;
}

/** What a memory tool call came to; a failure is an outcome the model reads, never a throw. */
export type MemoryToolResult = { success: true; result: Record<string, unknown> } | { success: false; error_message: string };

const refused = (error_message: string): MemoryToolResult => ({ success: false, error_message });

function argumentErrors(name: string, error: z.ZodError): string {
  const issues = error.issues.slice(0, 5).map((issue) => `${issue.path.map(String).join(".") || "arguments"}: ${issue.message}`);
  return `Invalid arguments for ${name}: ${issues.join("; ")}`;
}

/**
 * Runs memory_save or memory_search for `scope.agentId`, which must be one of the ctx user's
 * agents with agent_config.memory true. Refusals (bad arguments, a memory too long, a full
 * agent, memory off) come back as `error_message` for the model; an unexpected failure is
 * logged and answered with the request id only, since its message may hold stored data.
 */
export async function runMemoryTool(ctx: ServiceContext, scope: MemoryToolScope, name: string, args: unknown): Promise<MemoryToolResult> {
  if (!isMemoryTool(name)) return refused(`No memory tool is named "${name.slice(0, 100)}" (${MEMORY_TOOL_NAMES.join(", ")}).`);
  try {
    const agent = await memoryOwner(ctx, scope.agentId);
    if (agentSettingsOf(agent.config).memory !== true) return refused("This agent has no memory (its agent_config.memory is not true).");
    if (name === "memory_save") {
      const parsed = SaveArgs.safeParse(args);
      if (!parsed.success) return refused(argumentErrors(name, parsed.error));
      const saved = await saveMemory(ctx, { agentId: agent.id, text: parsed.data.text, conversationId: scope.conversationId, executionId: scope.executionId });
      return { success: true, result: { memory_id: saved.id, saved_at: saved.createdAt.toISOString() } };
    }
    const parsed = SearchArgs.safeParse(args);
    if (!parsed.success) return refused(argumentErrors(name, parsed.error));
    const found = await searchMemories(ctx, agent.id, parsed.data.query, parsed.data.limit);
    return { success: true, result: { memories: found.map(({ id, text, createdAt }) => ({ id, text, saved_at: createdAt.toISOString() })) } };
  } catch (error) {
    if (error instanceof HubError) return refused(error.message);
    console.error(JSON.stringify({ level: "error", message: "memory tool failed", tool: name, request_id: ctx.requestId, error: loggableError(error) }));
    return refused(`The memory tool failed; quote request ${ctx.requestId}.`);
  }
}
