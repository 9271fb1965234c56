import type { ServiceContext } from "../core/context";
import { HubError, type FieldError } from "../core/errors";
import { fillArguments } from "../llm/local/argument-filler";
import { listProviders, resolveProvider } from "../llm/providers";
import { rankTools } from "../llm/tool-ranking";
import { type ChatMessage, type ChatProvider, type GenerateResult, ProviderError, type StructuredOutput } from "../llm/types";
import { catalogFor } from "../tools/catalog-service";
import type { ToolInfo } from "../tools/types";
import { createWorkflow } from "./service";
import { validateSteps, type Step } from "./steps";
import { fencedBlock } from "../lib/fenced-block";
import { triggerFromDescription } from "./trigger-from-description";
import { governedProvider } from "../usage/governed-provider";
import { EarlierResults } from "./offline-links";
import { STEP_GUIDE, danglingLinks, workflowAnswerSchema } from "./builder-prompt";
import { type Trigger, checkedTrigger } from "./triggers";

export interface BuiltWorkflow {
  name: string;
  steps: Step[];
  variables: Record<string, unknown>;
  trigger: Trigger;
  provider: string;
}

const MIN_SCORE = 0.3;

/**
 * Turns a description into steps. The local provider reads it sentence by sentence: each
 * sentence that names a tool becomes that tool's step, its arguments filled from the sentence
 * and the rest left as `{{variables}}`. A model provider is asked for structured output against
 * the step schema; its steps are validated, sent back once for repair, and refused if still invalid.
 */
export async function buildFromDescription(
  ctx: ServiceContext,
  description: string,
  options: { name?: string | null; provider?: string | null },
): Promise<BuiltWorkflow> {
  // The model's requests are the account's: budgeted and in the ledger.
  const provider = governedProvider(ctx, await resolveProvider(ctx, options.provider), {});
  const catalog = (await catalogFor(ctx)).filter((t) => t.available);
  const name = options.name ?? nameFrom(description);
  const inferred = triggerFromDescription(description);
  // "Every 5 seconds" on a deployment that allows no less than 10: the nearest it allows.
  const floor = ctx.config.quotas.minIntervalSeconds;
  if (typeof inferred.trigger.config.interval_seconds === "number" && inferred.trigger.config.interval_seconds < floor) {
    inferred.trigger.config.interval_seconds = floor;
  }
  if (provider.id === "local") {
    // Offline, writing steps go to a model the account has (named on the step), or, with none,
    // become a text the person fills in: never an `llm` step the offline provider would refuse.
    const writer = (await listProviders(ctx)).providers.find((p) => p.id !== "local" && p.configured)?.id;
    return { name, provider: "local", trigger: inferred.trigger, ...buildLocally(inferred.rest || description, catalog, writer) };
  }
  const built = await buildWithModel(provider, description, catalog, ctx.config.quotas.minIntervalSeconds);
  // A model that gives no trigger gets the one the description's phrases name.
  return { name, provider: provider.id, ...built, trigger: built.trigger ?? inferred.trigger };
}

export function buildLocally(description: string, catalog: ToolInfo[], writer?: string): { steps: Step[]; variables: Record<string, unknown> } {
  const sentences = description
    .split(/(?<=[.!?;])\s+|\n+|\bthen\b/i)
    .map((s) => s.trim())
    .filter(Boolean);
  const steps: Step[] = [];
  const variables: Record<string, unknown> = {};
  const taken = new Set<string>();
  const earlier = new EarlierResults();
  const uniqueId = (base: string) => {
    const clean = base.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40);
    const start = /^[A-Za-z]/.test(clean) ? clean : `step_${clean}`;
    let id = start;
    for (let n = 2; taken.has(id); n++) id = `${start}_${n}`;
    taken.add(id);
    return id;
  };
  /** The step a sentence (or the rest of one) asks for: a model call, a tool, or nothing. */
  const stepFor = (sentence: string): Step | undefined => {
    if (LLM_VERBS.test(sentence)) {
      const id = uniqueId("draft");
      if (writer) return { id, type: "llm", name: sentence.slice(0, 200), prompt: sentence, output: "text", provider: writer };
      variables[`${id}_text`] = `(${sentence.slice(0, 200)})`;
      return { id, type: "tool", name: sentence.slice(0, 200), tool: "text_template", arguments: { template: `{{${id}_text}}` } };
    }
    const best = rankTools(sentence, catalog, 1)[0];
    if (!best || best.score < MIN_SCORE) return undefined;
    const filled = fillArguments(sentence, best.tool.input_schema);
    const args: Record<string, unknown> = { ...filled.args };
    // What an earlier step is known to return is linked; the rest becomes a variable to fill in.
    for (const field of earlier.link(args, filled.ok ? [] : filled.missing, best.tool.input_schema, sentence)) {
      args[field] = `{{${field}}}`;
      variables[field] = null;
    }
    return { id: uniqueId(best.tool.name.replace(/^mcp_\d+_/, "")), type: "tool", name: sentence.slice(0, 200), tool: best.tool.name, arguments: args };
  };
  for (const sentence of sentences) {
    const approval = APPROVAL.exec(sentence);
    if (approval) {
      steps.push({
        id: uniqueId("approval"),
        type: "wait_for_event",
        name: sentence.slice(0, 200),
        event: "approved",
        timeout_seconds: timeoutOf(sentence),
        on_timeout: "fail",
      });
      continue;
    }
    const loop = FOR_EACH.exec(sentence);
    if (loop) {
      // "For each lead, send …": the rest of the sentence runs once per item of {{input.leads}}.
      const noun = loop[1]!.toLowerCase();
      const inner = stepFor(sentence.slice(loop[0].length));
      if (inner) {
        const plural = noun.endsWith("s") ? noun : `${noun}s`;
        steps.push({
          id: uniqueId(`each_${noun}`),
          type: "for_each",
          name: sentence.slice(0, 200),
          items: `{{input.${plural}}}`,
          as: noun,
          steps: [inner],
          concurrency: 1,
        });
        continue;
      }
    }
    const step = stepFor(sentence);
    if (!step) continue;
    steps.push(step);
    if (step.type === "tool") earlier.add(step);
  }
  if (steps.length === 0) {
    throw new HubError("validation_failed", "No sentence of the description names a tool this account can use. Name tools (GET /v1/tools), one per sentence.", {
      errors: [{ location: "body", field: "description", message: "No tool matched." }],
    });
  }
  return { steps, variables };
}

/** "Wait for approval", "ask for sign-off", "get approval from …": a human approval step. */
const APPROVAL = /\b(wait|ask|get|require|needs?)\b.{0,40}\b(approv|sign[- ]?off)/i;
/** "For each lead, …", "for every contact …". */
const FOR_EACH = /^for (?:each|every) ([A-Za-z][A-Za-z_]{0,30})\b,?\s*/i;
/** Sentences that ask for writing, which a model step does. */
const LLM_VERBS = /^(draft|write|compose|summari[sz]e|rewrite|translate)\b/i;

/** "within 2 days", "within 3 hours": the approval's timeout; a day without one. */
function timeoutOf(sentence: string): number {
  const within = /\bwithin (\d{1,3}) (minute|hour|day)s?\b/i.exec(sentence);
  if (!within) return 24 * 3600;
  const unit = { minute: 60, hour: 3600, day: 86400 }[within[2]!.toLowerCase() as "minute" | "hour" | "day"];
  return Math.min(Number(within[1]) * unit, 30 * 24 * 3600);
}

/**
 * Asks the model for the workflow as structured output against the step schema, then validates
 * it as any saved workflow is (steps, links, trigger); an invalid answer is sent back once with
 * the errors. A server that ignores the schema answers in text, which is parsed the same way; one
 * that refuses it (HTTP 400) is asked again without it.
 */
async function buildWithModel(provider: ChatProvider, description: string, catalog: ToolInfo[], minIntervalSeconds: number) {
  const tools = catalog.map((t) => `- ${t.name}: ${t.description.slice(0, 200)} (input: ${JSON.stringify(t.input_schema).slice(0, 400)})`).join("\n");
  const messages: ChatMessage[] = [
    { role: "system", content: `You design automation workflows.\n${STEP_GUIDE}\nTools:\n${tools}` },
    { role: "user", content: description },
  ];
  let output: StructuredOutput | undefined = { name: "workflow", schema: workflowAnswerSchema() };
  let errors: FieldError[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    let answer: GenerateResult;
    try {
      answer = await provider.generate({ messages, tools: [], output });
    } catch (error) {
      if (!output || !refusedSchema(error)) throw error;
      output = undefined;
      answer = await provider.generate({ messages, tools: [] });
    }
    const parsed = parseJson(answer.text);
    const rawSteps = Array.isArray(parsed?.steps) ? parsed.steps : undefined;
    if (rawSteps) {
      const checked = validateSteps(rawSteps);
      const trigger = modelTrigger(parsed?.trigger, minIntervalSeconds);
      errors = [...checked.errors, ...danglingLinks(rawSteps), ...trigger.errors];
      if (errors.length === 0) return { steps: checked.steps, variables: isObject(parsed?.variables) ? parsed.variables : {}, trigger: trigger.value };
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

/** A model server that does not take `response_format: json_schema` answers 400 (the request itself is refused). */
const refusedSchema = (error: unknown) => error instanceof ProviderError && /\(HTTP 400\)/.test(error.message);

/** The model's `trigger`, checked like any saved trigger; none given is fine. */
function modelTrigger(raw: unknown, minIntervalSeconds: number): { value?: Trigger; errors: FieldError[] } {
  if (raw === undefined || raw === null) return { errors: [] };
  if (!isObject(raw) || typeof raw.type !== "string") return { errors: [{ location: "body", field: "trigger", message: 'Use {"type", "config"}.' }] };
  try {
    return { value: checkedTrigger(raw.type, raw.config ?? {}, minIntervalSeconds), errors: [] };
  } catch (error) {
    if (error instanceof HubError) return { errors: error.errors ?? [{ location: "body", field: "trigger", message: error.message }] };
    throw error;
  }
}

function parseJson(text: string): any {
  const body = fencedBlock(text) ?? text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1);
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
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
    triggerType: built.trigger.type,
    triggerConfig: built.trigger.config,
    metadata: { built_by: built.provider },
  });
}
