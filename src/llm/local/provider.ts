import { rankTools } from "../tool-ranking";
import type { ChatMessage, ChatProvider, GenerateRequest, GenerateResult, ToolSpec } from "../types";
import { fillArguments } from "./argument-filler";

/** A tool the local provider will call only if the message names it this clearly (0..1). */
const MIN_SCORE = 0.3;

/**
 * The built-in provider: offline and deterministic. It ranks the offered tools against the
 * user's message and calls the best one only when it can fill every required argument from the
 * message; otherwise it says what it would need. It never pretends to be a language model.
 */
export function localProvider(): ChatProvider {
  return wholeTextOnce({
    id: "local",
    model: "local-tool-router",
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const lastUser = [...request.messages].reverse().find((m) => m.role === "user");
      const afterUser = request.messages.slice(request.messages.lastIndexOf(lastUser!) + 1);
      const results = afterUser.filter((m): m is Extract<ChatMessage, { role: "tool" }> => m.role === "tool");
      const text = lastUser?.content ?? "";
      const usage = { inputTokens: countTokens(request.messages.map((m) => m.content).join(" ")), outputTokens: 0 };

      if (results.length > 0) {
        const reply = results.map((r) => `Ran \`${r.toolName}\`: ${summarize(r.content)}`).join("\n\n");
        return done(`${reply}\n\n_(Answered by the local provider, which runs tools but writes no prose; configure a model provider for that.)_`, usage);
      }

      const ranked = rankTools(text, request.tools.map(asInfo), 5);
      for (const candidate of ranked) {
        if (candidate.score < MIN_SCORE) break;
        const spec = request.tools.find((t) => t.name === candidate.tool.name)!;
        const filled = fillArguments(text, spec.inputSchema);
        if (filled.ok) {
          return { text: "", toolCalls: [{ id: `local_${crypto.randomUUID()}`, name: spec.name, arguments: filled.args }], usage, model: "local-tool-router" };
        }
      }

      const best = ranked[0];
      if (best && best.score >= MIN_SCORE) {
        const spec = request.tools.find((t) => t.name === best.tool.name)!;
        const filled = fillArguments(text, spec.inputSchema);
        const missing = filled.ok ? [] : filled.missing;
        return done(
          `The closest tool is \`${best.tool.name}\` (${best.reason}), but I cannot fill ${missing.map((m) => `\`${m}\``).join(", ")} from your message. Give ${missing.length > 1 ? "them" : "it"} as \`name: value\`, or configure a model provider to work it out.`,
          usage,
        );
      }
      return done(
        ranked.length
          ? `I found no tool that clearly matches. Closest: ${ranked.map((r) => `\`${r.tool.name}\``).join(", ")}. The local provider has no language model; name a tool and its arguments (\`name: value\`), or configure a model provider.`
          : "The local provider has no language model and found no tool matching your message. Name a tool and its arguments (`name: value`), or configure a model provider.",
        usage,
      );
    },
  });
}

/** Nothing here is produced piece by piece: a listener asking for the text gets it whole, once, before the answer. */
function wholeTextOnce(provider: ChatProvider): ChatProvider {
  return {
    ...provider,
    async generate(request) {
      const result = await provider.generate(request);
      if (request.onTextDelta && result.text) request.onTextDelta(result.text);
      return result;
    },
  };
}

function done(text: string, usage: { inputTokens: number; outputTokens: number }): GenerateResult {
  return { text, toolCalls: [], usage: { ...usage, outputTokens: countTokens(text) }, model: "local-tool-router" };
}

const asInfo = (spec: ToolSpec) => ({
  name: spec.name,
  title: spec.name,
  description: spec.description,
  source: "builtin" as const,
  platform: spec.name.split("_")[0] ?? null,
  connection_id: null,
  input_schema: spec.inputSchema,
  // A model request's tool specs do not carry it, and ranking does not read it.
  effect: "write" as const,
  available: true,
});

/** A rough token count (about four characters a token), so usage is never silently zero. */
export function countTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function summarize(content: string): string {
  return content.length > 1500 ? `${content.slice(0, 1500)}…` : content;
}
