import { z } from "@hono/zod-openapi";
import { OPERATORS, patternProblem, type Condition } from "../lib/conditions";
import type { FieldError } from "../core/errors";
import { parseToolName } from "../tools/catalog";

export const MAX_STEPS = 100;
export const MAX_DELAY_SECONDS = 30 * 24 * 3600;

export const RetryPolicySchema = z
  .object({
    max_attempts: z.number().int().min(1).max(10),
    delay_seconds: z.number().min(0).max(3600).default(5),
    backoff: z.enum(["fixed", "exponential"]).default("fixed"),
  })
  .openapi("RetryPolicy");
export type RetryPolicy = z.infer<typeof RetryPolicySchema>;

const ConditionSchema: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    z.object({ field: z.string().min(1).max(500), operator: z.enum(OPERATORS), value: z.unknown().optional() }).strict(),
    z.object({ and: z.array(ConditionSchema).min(1).max(20) }).strict(),
    z.object({ or: z.array(ConditionSchema).min(1).max(20) }).strict(),
    z.object({ not: ConditionSchema }).strict(),
  ]),
) as z.ZodType<Condition>;
export { ConditionSchema };

const StepId = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "Use a letter, then letters, digits, _ or - (64 at most).");

export type Step =
  | { id: string; type: "tool"; name?: string; tool: string; arguments: Record<string, unknown>; retry?: RetryPolicy }
  | { id: string; type: "condition"; name?: string; condition: Condition; then: Step[]; else: Step[] }
  | { id: string; type: "set"; name?: string; values: Record<string, unknown> }
  | { id: string; type: "delay"; name?: string; seconds: number }
  | { id: string; type: "wait_for_event"; name?: string; event: string; timeout_seconds: number; on_timeout: "fail" | "continue" };

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
    z.object({ id: StepId, type: z.literal("delay"), name: Name, seconds: z.number().min(0).max(MAX_DELAY_SECONDS) }).strict(),
    z
      .object({
        id: StepId,
        type: z.literal("wait_for_event"),
        name: Name,
        event: EventName,
        timeout_seconds: z.number().int().min(1).max(MAX_DELAY_SECONDS),
        on_timeout: z.enum(["fail", "continue"]).default("fail"),
      })
      .strict(),
  ]),
) as z.ZodType<Step>;

export const StepsSchema = z.array(z.unknown()).max(MAX_STEPS).openapi({
  description:
    "Ordered steps. Each has a unique `id` and a `type`: tool {tool, arguments, retry?}, condition {condition, then, else}, set {values}, delay {seconds}, wait_for_event {event, timeout_seconds, on_timeout?: fail|continue} (the run waits, holding no worker, until POST /v1/executions/{id}/events delivers the event; its payload is the step's result).",
});

export const SettingsSchema = z.object({ retry: RetryPolicySchema.optional() }).strict().openapi("WorkflowSettings");

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
  const walk = (list: Step[], path: string) =>
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
      if (step.type === "condition") {
        for (const pattern of patternsOf(step.condition)) {
          const problem = patternProblem(pattern);
          if (problem) errors.push({ location: "body", field: `${here}.condition`, message: `Step "${step.id}": ${problem}` });
        }
        walk(step.then, `${here}.then`);
        walk(step.else, `${here}.else`);
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

/** The step with this id, wherever it sits (branches included). */
export function findStep(steps: Step[], id: string): Step | undefined {
  for (const step of steps) {
    if (step.id === id) return step;
    if (step.type === "condition") {
      const inside = findStep(step.then, id) ?? findStep(step.else, id);
      if (inside) return inside;
    }
  }
  return undefined;
}
