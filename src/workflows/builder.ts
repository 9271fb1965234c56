import type { ServiceContext } from "../core/context";
import { HubError, type FieldError } from "../core/errors";
import { fillArguments } from "../llm/local/argument-filler";
import { resolveProvider } from "../llm/providers";
import { rankTools } from "../llm/tool-ranking";
import type { ChatMessage, ChatProvider } from "../llm/types";
import { catalogFor } from "../tools/catalog-service";
import type { ToolInfo } from "../tools/types";
import { createWorkflow } from "./service";
import { validateSteps, type Step } from "./steps";

export interface BuiltWorkflow {
  name: string;
  steps: Step[];
  variables: Record<string, unknown>;
  provider: string;
}

const MIN_SCORE = 0.3;

/**
 * Turns a description into steps. The local provider reads it sentence by sentence: each
 * sentence that names a tool becomes that tool's step, its arguments filled from the sentence
 * and the rest left as `{{variables}}`. A model provider answers with JSON steps, which are
 * validated against the step schema, sent back once for repair, and refused if still invalid.
 */
export async function buildFromDescription(
  ctx: ServiceContext,
  description: string,
  options: { name?: string | null; provider?: string | null },
): Promise<BuiltWorkflow> {
  const provider = await resolveProvider(ctx, options.provider);
  const catalog = (await catalogFor(ctx)).filter((t) => t.available);
  const name = options.name ?? nameFrom(description);
  if (provider.id === "local") return { name, provider: "local", ...buildLocally(description, catalog) };
  return { name, provider: provider.id, ...(await buildWithModel(provider, description, catalog)) };
}

export function buildLocally(description: string, catalog: ToolInfo[]): { steps: Step[]; variables: Record<string, unknown> } {
  const sentences = description
    .split(/(?<=[.!?;])\s+|\n+|\bthen\b/i)
    .map((s) => s.trim())
    .filter(Boolean);
  const steps: Step[] = [];
  const variables: Record<string, unknown> = {};
  for (const sentence of sentences) {
    const best = rankTools(sentence, catalog, 1)[0];
    if (!best || best.score < MIN_SCORE) continue;
    const filled = fillArguments(sentence, best.tool.input_schema);
    const args: Record<string, unknown> = { ...filled.args };
    if (!filled.ok) {
      for (const field of filled.missing) {
        args[field] = `{{${field}}}`;
        variables[field] = null;
      }
    }
    const base = best.tool.name
      .replace(/^mcp_\d+_/, "")
      .replace(/[^A-Za-z0-9_-]/g, "_")
      .slice(0, 40);
    let id = /^[A-Za-z]/.test(base) ? base : `step_${base}`;
    for (let n = 2; steps.some((s) => s.id === id); n++) id = `${base}_${n}`;
    steps.push({ id, type: "tool", name: sentence.slice(0, 200), tool: best.tool.name, arguments: args });
  }
  if (steps.length === 0) {
    throw new HubError("validation_failed", "No sentence of the description names a tool this account can use. Name tools (GET /v1/tools), one per sentence.", {
      errors: [{ location: "body", field: "description", message: "No tool matched." }],
    });
  }
  return { steps, variables };
}

const STEP_GUIDE = [
  'Answer with JSON only: {"steps": [...], "variables": {...}}.',
  'Step types: {"id","type":"tool","tool","arguments"}, {"id","type":"condition","condition":{"field","operator","value"},"then":[...],"else":[...]}, {"id","type":"set","values":{...}}, {"id","type":"delay","seconds"}.',
  "Ids are unique, start with a letter and use letters, digits, _ or -. Use only the tools listed. Reference earlier results as {{steps.<id>.result...}} and inputs as {{input.<name>}}.",
].join("\n");

async function buildWithModel(provider: ChatProvider, description: string, catalog: ToolInfo[]) {
  const tools = catalog.map((t) => `- ${t.name}: ${t.description.slice(0, 200)} (input: ${JSON.stringify(t.input_schema).slice(0, 400)})`).join("\n");
  const messages: ChatMessage[] = [
    { role: "system", content: `You design automation workflows.\n${STEP_GUIDE}\nTools:\n${tools}` },
    { role: "user", content: description },
  ];
  let errors: FieldError[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    const answer = await provider.generate({ messages, tools: [] });
    const parsed = parseJson(answer.text);
    const rawSteps = Array.isArray(parsed?.steps) ? parsed.steps : undefined;
    if (rawSteps) {
      const checked = validateSteps(rawSteps);
      if (checked.errors.length === 0) return { steps: checked.steps, variables: isObject(parsed?.variables) ? parsed.variables : {} };
      errors = checked.errors;
    } else {
      errors = [{ location: "body", field: "steps", message: "The model's answer had no JSON steps array." }];
    }
    messages.push(
      { role: "assistant", content: answer.text },
      { role: "user", content: `That is not valid: ${JSON.stringify(errors)}. Answer again with corrected JSON only.` },
    );
  }
  throw new HubError("validation_failed", `The ${provider.id} provider did not produce a valid workflow, even after one repair.`, { errors });
}

function parseJson(text: string): any {
  const body = fencedBlock(text) ?? text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1);
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The inside of the first ``` fence (an optional `json` tag dropped), found without a regex. */
function fencedBlock(text: string): string | undefined {
  const open = text.indexOf("```");
  if (open < 0) return undefined;
  const close = text.indexOf("```", open + 3);
  if (close < 0) return undefined;
  const inside = text.slice(open + 3, close);
  return inside.startsWith("json") ? inside.slice(4) : inside;
}

const isObject = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === "object" && !Array.isArray(value);

function nameFrom(description: string): string {
  const first = description.split(/[.!?\n]/)[0]!.trim();
  return (first.length > 60 ? `${first.slice(0, 57)}…` : first) || "New workflow";
}

/** Builds a workflow from a description and saves it for the caller. */
export async function createWorkflowFromDescription(ctx: ServiceContext, input: { description: string; name?: string | null; provider?: string | null }) {
  const built = await buildFromDescription(ctx, input.description, { name: input.name, provider: input.provider });
  return createWorkflow(ctx, {
    name: built.name,
    description: input.description,
    steps: built.steps,
    variables: built.variables,
    metadata: { built_by: built.provider },
  });
}
