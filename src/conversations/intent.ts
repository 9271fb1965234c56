import { fillArguments } from "../llm/local/argument-filler";
import { rankTools, terms } from "../llm/tool-ranking";
import type { ToolInfo } from "../tools/types";

export type Intent = "run_tool" | "build_workflow" | "question" | "greeting" | "other";

export interface IntentExplanation {
  intent: Intent;
  confidence: number;
  reasoning: string;
  candidate_tools: string[];
}

const WORKFLOW_WORDS = ["every", "daily", "weekly", "monthly", "hourly", "schedule", "automate", "automation", "workflow", "whenever", "recurring", "cron"];
const GREETINGS = /^(hi|hello|hey|thanks|thank you|good (morning|afternoon|evening))\b/i;
const QUESTION_START = /^(what|how|why|which|who|when|where|can|could|does|do|is|are|should)\b/i;

/**
 * The hub's own deterministic intent router, explained: the label the orchestrator would act
 * on, how sure it is, and why. No model is called.
 */
export function classifyIntent(content: string, catalog: ToolInfo[]): IntentExplanation {
  const text = content.trim();
  const words = new Set(terms(text));
  const ranked = rankTools(text, catalog, 3);
  const workflowHits = WORKFLOW_WORDS.filter((w) => words.has(w) || text.toLowerCase().includes(`${w} `));
  const best = ranked[0];
  const fillable = best ? fillArguments(text, best.tool.input_schema).ok : false;
  const candidates = ranked.map((r) => r.tool.name);

  if (workflowHits.length && (best || isConditional(text))) {
    return {
      intent: "build_workflow",
      confidence: Math.min(0.95, 0.55 + 0.1 * workflowHits.length),
      reasoning: `Mentions recurring or triggered work (${workflowHits.join(", ")}) and tools that could carry it out.`,
      candidate_tools: candidates,
    };
  }
  if (best && best.score >= 0.3) {
    return {
      intent: "run_tool",
      confidence: Math.min(0.95, Math.round((0.4 + best.score * 0.5 + (fillable ? 0.15 : 0)) * 100) / 100),
      reasoning: `Best matching tool is ${best.tool.name} (${best.reason})${fillable ? "; its required arguments can be filled from the message" : "; some required arguments are missing"}.`,
      candidate_tools: candidates,
    };
  }
  if (GREETINGS.test(text))
    return { intent: "greeting", confidence: 0.9, reasoning: "Opens with a greeting or thanks and asks for no action.", candidate_tools: candidates };
  if (text.endsWith("?") || QUESTION_START.test(text)) {
    return { intent: "question", confidence: 0.7, reasoning: "Phrased as a question, with no tool clearly named.", candidate_tools: candidates };
  }
  return { intent: "other", confidence: 0.4, reasoning: "No tool, schedule or question pattern matched.", candidate_tools: candidates };
}

/** "when … then …" or "if … then …" on one line, judged on whole words in one pass. */
function isConditional(text: string): boolean {
  for (const line of text.toLowerCase().split("\n")) {
    const words = line.split(/[^a-z0-9_]+/);
    const opener = words.findIndex((w) => w === "when" || w === "if");
    if (opener >= 0 && words.lastIndexOf("then") > opener) return true;
  }
  return false;
}
