import { z } from "@hono/zod-openapi";
import { patternProblem, type Condition } from "../lib/conditions";
import type { FieldError } from "../core/errors";
import { schemaProblems } from "../lib/user-json-schema";
import { ConditionSchema } from "../lib/condition-schema";
import { type PolicyRule, PolicyRulesSchema } from "../governance/policies";
import { MAX_STEPS_LIMIT } from "../agent-loop/settings";
import { agentBudgetErrors } from "../usage/agent-budget";
import { utf8Length } from "../lib/bytes";
import { CODE_LIMITS } from "../lib/sandbox/limits";
import { parseToolName } from "../tools/catalog";
import { type RetryPolicy, RetryPolicySchema } from "./retry-policy";

export const MAX_STEPS = 100;
export const MAX_DELAY_SECONDS = 30 * 24 * 3600;

export { ConditionSchema };
// Where they are declared on their own; many importers know them from here.
export { type RetryPolicy, RetryPolicySchema } from "./retry-policy";
export { MAX_WORKFLOW_CONCURRENCY, NOTIFY_EVENTS, SettingsSchema, type WorkflowSettings } from "./settings-schema";

/**
 * `agent`: the chat turn's loop inside a run (DESIGN §6.3): the model works through `prompt` with
 * tools (names or globs; the agent's own `tools` still bound them), under the policies and
 * budgets, for at most `max_steps` model requests, checkpointing each answer and tool result.
 */
export interface AgentStep {
  id: string;
  type: "agent";
  name?: string;
  prompt: string;
  instructions?: string;
  tools?: string[];
  tool_policies?: PolicyRule[];
  max_steps?: number;
  budget?: Record<string, number>;
  output_schema?: Record<string, unknown>;
  provider?: string;
  model?: string;
  memory?: boolean;
  on_error?: OnError;
}

/**
 * What a tool, llm, code or agent step does once its attempts are spent (DESIGN §6.5): fail the
 * run (the default), record the failure and go on, or run the handler `steps`, then go on.
 */
export type OnError = "fail" | "continue" | { steps: Step[] };

// Lazy: the handler's steps are steps of any kind (StepSchema, declared below).
const OnErrorSchema: z.ZodType<OnError> = z.lazy(() =>
  z.union([z.enum(["fail", "continue"]), z.object({ steps: z.array(StepSchema).min(1).max(MAX_STEPS) }).strict()], {
    error: 'Use "fail", "continue" or {"steps": [...]}.',
  }),
);

const AgentStepSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "Use a letter, then letters, digits, _ or - (64 at most)."),
    type: z.literal("agent"),
    name: z.string().max(200).optional(),
    prompt: z.string().min(1).max(20_000),
    instructions: z.string().max(20_000).optional(),
    tools: z
      .array(
        z
          .string()
          .min(1)
          .max(200)
          .regex(/^[A-Za-z0-9_.*?-]+$/, "A tool name, or a glob of one with * and ?."),
      )
      .max(200)
      .optional(),
    tool_policies: PolicyRulesSchema.optional(),
    max_steps: z.number().int().min(1).max(MAX_STEPS_LIMIT).optional(),
    budget: z.record(z.string(), z.number()).optional(),
    output_schema: z.record(z.string(), z.unknown()).optional(),
    provider: z.string().max(50).optional(),
    model: z.string().max(200).optional(),
    memory: z.boolean().optional(),
    on_error: OnErrorSchema.optional(),
  })
  .strict()
  .superRefine((step, check) => {
    for (const error of agentBudgetErrors(step.budget, "budget"))
      check.addIssue({ code: "custom", path: ["budget"], message: `${error.field}: ${error.message}` });
    if (step.output_schema) {
      const [problem] = schemaProblems(step.output_schema);
      if (problem) check.addIssue({ code: "custom", path: ["output_schema"], message: `${problem.pointer || "/"}: ${problem.message}` });
    }
  });

const StepId = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "Use a letter, then letters, digits, _ or - (64 at most).");

export type Step =
  | { id: string; type: "tool"; name?: string; tool: string; arguments: Record<string, unknown>; retry?: RetryPolicy; on_error?: OnError }
  | { id: string; type: "condition"; name?: string; condition: Condition; then: Step[]; else: Step[] }
  | { id: string; type: "set"; name?: string; values: Record<string, unknown> }
  /** `seconds`: a number, or one placeholder ("{{steps.wait_for.result.seconds}}") worked out when the step runs. */
  | { id: string; type: "delay"; name?: string; seconds: number | string }
  | {
      id: string;
      type: "wait_for_event";
      name?: string;
      event: string;
      timeout_seconds: number;
      on_timeout: "fail" | "continue";
      /** Who may deliver the event; absent means "any" (see `Approvers`). */
      approvers?: Approvers;
    }
  | {
      id: string;
      type: "llm";
      name?: string;
      prompt: string;
      system?: string;
      provider?: string;
      model?: string;
      output: "text" | "json";
      schema?: Record<string, unknown>;
      retry?: RetryPolicy;
      on_error?: OnError;
    }
  | AgentStep
  | { id: string; type: "for_each"; name?: string; items: string | unknown[]; as: string; steps: Step[]; concurrency: number }
  | { id: string; type: "workflow"; name?: string; workflow_id: number; input: Record<string, unknown> }
  | { id: string; type: "code"; name?: string; code: string; input?: unknown; cpu_ms?: number; retry?: RetryPolicy; on_error?: OnError };

/** The most items a for_each runs, and the most it runs at once. */
export const MAX_FOR_EACH_ITEMS = 1000;
export const MAX_FOR_EACH_CONCURRENCY = 20;
/** How deep `workflow` steps may nest (a top-level run is depth 0). */
export const MAX_WORKFLOW_DEPTH = 5;
/** Step types that may run inside a for_each: none of them parks the run (a wait holds the loop). */
const IN_LOOP = new Set<Step["type"]>(["tool", "set", "condition", "llm", "code"]);

/** The most people a wait_for_event step may name as its approvers. */
export const MAX_APPROVERS = 20;
/**
 * Who may deliver a wait_for_event step's event: "any" credential of the run's owner (the
 * default), an owner's credential "other" than the one that started the run, or only the
 * users listed (by id), who may deliver it though the run is not theirs.
 */
export type Approvers = "any" | "other" | number[];
const ApproversSchema = z.union([
  z.enum(["any", "other"]),
  z
    .array(z.number().int().positive())
    .min(1)
    .max(MAX_APPROVERS)
    .refine((ids) => new Set(ids).size === ids.length, "List each user once."),
]);

const Name = z.string().max(200).optional();
/** What a `wait_for_event` step waits for and `POST /v1/executions/{id}/events` delivers. */
export const EventName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/, "Use letters, digits, _ . : or - (100 at most).");
/** Names the run context already uses: a set step may not shadow them. */
const RESERVED = ["steps", "input", "execution", "agent"];
const VariableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);

export const StepSchema: z.ZodType<Step> = z.lazy(() =>
  z.discriminatedUnion("type", [
    z
      .object({
        id: StepId,
        type: z.literal("tool"),
        name: Name,
        tool: z.string().min(1).max(200),
        arguments: z.record(z.string(), z.unknown()).default({}),
        retry: RetryPolicySchema.optional(),
        on_error: OnErrorSchema.optional(),
      })
      .strict(),
    z
      .object({
        id: StepId,
        type: z.literal("condition"),
        name: Name,
        condition: ConditionSchema,
        then: z.array(StepSchema).default([]),
        else: z.array(StepSchema).default([]),
      })
      .strict(),
    z.object({ id: StepId, type: z.literal("set"), name: Name, values: z.record(VariableName, z.unknown()) }).strict(),
    z
      .object({
        id: StepId,
        type: z.literal("delay"),
        name: Name,
        // A placeholder lets a variable or an earlier step decide the wait; its value is checked when the step runs.
        seconds: z.union([z.number().min(0).max(MAX_DELAY_SECONDS), z.string().regex(/^\{\{[^{}]+\}\}$/, "a number of seconds or one {{placeholder}}")]),
      })
      .strict(),
    z
      .object({
        id: StepId,
        type: z.literal("wait_for_event"),
        name: Name,
        event: EventName,
        timeout_seconds: z.number().int().min(1).max(MAX_DELAY_SECONDS),
        on_timeout: z.enum(["fail", "continue"]).default("fail"),
        approvers: ApproversSchema.optional(),
      })
      .strict(),
    z
      .object({
        id: StepId,
        type: z.literal("llm"),
        name: Name,
        prompt: z.string().min(1).max(20_000),
        system: z.string().max(20_000).optional(),
        provider: z.string().max(50).optional(),
        model: z.string().max(200).optional(),
        output: z.enum(["text", "json"]).default("text"),
        schema: z.record(z.string(), z.unknown()).optional(),
        retry: RetryPolicySchema.optional(),
        on_error: OnErrorSchema.optional(),
      })
      .strict(),
    AgentStepSchema,
    z
      .object({
        id: StepId,
        type: z.literal("for_each"),
        name: Name,
        items: z.union([z.string().min(1).max(500), z.array(z.unknown()).max(MAX_FOR_EACH_ITEMS)]),
        as: VariableName.default("item"),
        steps: z.array(StepSchema).min(1),
        concurrency: z.number().int().min(1).max(MAX_FOR_EACH_CONCURRENCY).default(1),
      })
      .strict(),
    z
      .object({
        id: StepId,
        type: z.literal("workflow"),
        name: Name,
        workflow_id: z.number().int().positive(),
        input: z.record(z.string(), z.unknown()).default({}),
      })
      .strict(),
    z
      .object({
        id: StepId,
        type: z.literal("code"),
        name: Name,
        code: z
          .string()
          .min(1)
          .refine((code) => utf8Length(code) <= CODE_LIMITS.maxCodeBytes, `At most ${CODE_LIMITS.maxCodeBytes / 1024} KiB of code.`),
        input: z.unknown().optional(),
        cpu_ms: z.number().int().min(1).max(CODE_LIMITS.maxCpuMs).optional(),
        retry: RetryPolicySchema.optional(),
        on_error: OnErrorSchema.optional(),
      })
      .strict(),
  ]),
) as z.ZodType<Step>;

export const StepsSchema = z.array(z.unknown()).max(MAX_STEPS).openapi({
  description:
    'Ordered steps. Each has a unique `id` and a `type`: tool {tool, arguments, retry?}, condition {condition, then, else}, set {values}, delay {seconds} (a number, or one placeholder whose value is the number of seconds), wait_for_event {event, timeout_seconds, on_timeout?: fail|continue, approvers?: any|other|[user ids]} (the run waits, holding no worker, until POST /v1/executions/{id}/events delivers the event; its payload is the step\'s result; approvers: "any" credential of yours (default), "other" than the credential that started the run, or only the listed users, who may deliver it though the run is not theirs), llm {prompt, system?, provider?, model?, output?: text|json, schema?} (result {text} or {json}, tokens recorded; on the deployment\'s own key only the models it allows, listed by GET /v1/chat/providers, and model calls count against a per-minute limit: over it the step waits for the next minute), for_each {items, as?: item, steps, concurrency?} (inside: {{item}}, {{index}}; result: per item, its steps\' results), workflow {workflow_id, input?} (runs another of your workflows as a child execution, depth at most 5), code {code, input?, cpu_ms?, retry?} (`code` is the body of an async JavaScript function of `input` — the substituted `input`, by default {input, steps, variables} — that returns a JSON value; no network and nothing of the hub, a CPU budget of cpu_ms (default 200, at most 2000), 64 MiB of memory, 5 s wall clock; result {value, logs}: the returned value and the first 100 console.log lines). tool, llm, code and agent steps take on_error: fail (default) | continue | {steps: [...]}: once its attempts are spent, a failed step fails the run, or is recorded and the run goes on (continue), or its handler steps run and then the run goes on; later steps read {{steps.<id>.status}} (succeeded, failed, skipped) and {{steps.<id>.error.message}}; the run ends succeeded with errors_handled counting those failures. Handler steps have ids unique across the workflow and may not have handler steps of their own.',
});

/**
 * Parses and checks a step list: shapes, unique ids across nested branches, tools that exist,
 * regex patterns that are safe. Every problem names the step and the field.
 */
export function validateSteps(raw: unknown[], field = "steps"): { steps: Step[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const steps: Step[] = [];
  raw.forEach((candidate, index) => {
    const parsed = StepSchema.safeParse(candidate);
    if (!parsed.success) {
      const id = typeof (candidate as { id?: unknown })?.id === "string" ? ` (step "${(candidate as { id: string }).id}")` : "";
      for (const issue of parsed.error.issues) {
        errors.push({ location: "body", field: [field, index, ...issue.path].join("."), message: `${issue.message}${id}` });
      }
      return;
    }
    steps.push(parsed.data);
  });
  if (errors.length) return { steps, errors };

  const seen = new Set<string>();
  let count = 0;
  const walk = (list: Step[], path: string, inLoop = false, inHandler = false) =>
    list.forEach((step, index) => {
      const here = `${path}.${index}`;
      count++;
      if (seen.has(step.id)) errors.push({ location: "body", field: `${here}.id`, message: `Step id "${step.id}" is used twice; ids must be unique.` });
      seen.add(step.id);
      if (step.type === "set") {
        for (const name of Object.keys(step.values).filter((n) => RESERVED.includes(n))) {
          errors.push({ location: "body", field: `${here}.values.${name}`, message: `Step "${step.id}": ${RESERVED.join(", ")} are reserved names.` });
        }
      }
      if (step.type === "tool" && !parseToolName(step.tool)) {
        errors.push({ location: "body", field: `${here}.tool`, message: `Step "${step.id}": no tool named "${step.tool}".` });
      }
      if (inLoop && !IN_LOOP.has(step.type)) {
        errors.push({
          location: "body",
          field: `${here}.type`,
          message: `Step "${step.id}": a for_each may hold ${[...IN_LOOP].join(", ")} steps, not ${step.type}.`,
        });
      }
      if (step.type === "llm" && step.schema && step.output !== "json") {
        errors.push({ location: "body", field: `${here}.schema`, message: `Step "${step.id}": a schema needs output "json".` });
      }
      if (step.type === "llm" && step.schema && JSON.stringify(step.schema).length > 20_000) {
        errors.push({ location: "body", field: `${here}.schema`, message: `Step "${step.id}": the schema is larger than 20,000 characters.` });
      }
      if (step.type === "llm" && step.schema) {
        for (const problem of schemaProblems(step.schema)) {
          errors.push({ location: "body", field: `${here}.schema`, message: `Step "${step.id}": at schema${problem.pointer || "/"}: ${problem.message}` });
        }
      }
      if (step.type === "for_each") {
        if (RESERVED.includes(step.as) || step.as === "index") {
          errors.push({ location: "body", field: `${here}.as`, message: `Step "${step.id}": ${[...RESERVED, "index"].join(", ")} are reserved names.` });
        }
        walk(step.steps, `${here}.steps`, true, inHandler);
      }
      if (step.type === "condition") {
        for (const pattern of patternsOf(step.condition)) {
          const problem = patternProblem(pattern);
          if (problem) errors.push({ location: "body", field: `${here}.condition`, message: `Step "${step.id}": ${problem}` });
        }
        walk(step.then, `${here}.then`, inLoop, inHandler);
        walk(step.else, `${here}.else`, inLoop, inHandler);
      }
      const handler = handlerSteps(step);
      if (handler && inHandler) {
        errors.push({ location: "body", field: `${here}.on_error`, message: `Step "${step.id}": a handler's steps may not have handler steps of their own.` });
      } else if (handler) {
        walk(handler, `${here}.on_error.steps`, inLoop, true);
      }
    });
  walk(steps, field);
  if (count > MAX_STEPS) errors.push({ location: "body", field, message: `At most ${MAX_STEPS} steps, branches included.` });
  return { steps, errors };
}

function patternsOf(condition: Condition): string[] {
  if ("and" in condition) return condition.and.flatMap(patternsOf);
  if ("or" in condition) return condition.or.flatMap(patternsOf);
  if ("not" in condition) return patternsOf(condition.not);
  return condition.operator === "matches" && typeof condition.value === "string" ? [condition.value] : [];
}

/** The step lists directly inside a step, each with its field: a condition's branches, a for_each's body, an on_error handler. */
export function nestedStepLists(step: Step): { field: string; steps: Step[] }[] {
  const handler = handlerSteps(step);
  const own =
    step.type === "condition"
      ? [
          { field: "then", steps: step.then },
          { field: "else", steps: step.else },
        ]
      : step.type === "for_each"
        ? [{ field: "steps", steps: step.steps }]
        : [];
  return handler ? [...own, { field: "on_error.steps", steps: handler }] : own;
}

/** The steps directly inside a step: a condition's branches, a for_each's body, an on_error handler. */
export function innerSteps(step: Step): Step[] {
  return nestedStepLists(step).flatMap((list) => list.steps);
}

/** How a step meets its failure once its attempts are spent: "fail" unless its on_error says otherwise. */
export function onErrorOf(step: Step): OnError {
  return ("on_error" in step && step.on_error) || "fail";
}

/** The steps of a step's on_error handler, if it has one. */
export function handlerSteps(step: Step): Step[] | undefined {
  const onError = onErrorOf(step);
  return typeof onError === "object" ? onError.steps : undefined;
}

/** The step with this id, wherever it sits (branches and loops included). */
export function findStep(steps: Step[], id: string): Step | undefined {
  for (const step of steps) {
    if (step.id === id) return step;
    const inside = findStep(innerSteps(step), id);
    if (inside) return inside;
  }
  return undefined;
}
