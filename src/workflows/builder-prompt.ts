import { z } from "@hono/zod-openapi";
import type { JsonSchema } from "../tools/types";
import { StepSchema } from "./steps";

/**
 * What a model is told about steps when it builds a workflow. The answer's shape is also given as
 * a JSON Schema (`workflowAnswerSchema`) for structured output; this text says what the shapes mean.
 */
export const STEP_GUIDE = [
  'Answer with one JSON object: {"steps": [...], "variables": {...}, "trigger"?: {...}}.',
  'Step types: {"id","type":"tool","tool","arguments"}, {"id","type":"condition","condition":{"field","operator","value"},"then":[...],"else":[...]}, {"id","type":"set","values":{...}}, {"id","type":"delay","seconds"}, {"id","type":"llm","prompt","system"?,"output":"text"|"json","schema"?} (a model call; result {text} or {json}), {"id","type":"code","code","input"?} (the body of an async JavaScript function of `input` that returns a JSON value: for computing, reshaping or filtering data, no network; `input` defaults to {input, steps, variables}; result {value, logs}), {"id","type":"for_each","items":"{{input.list}}","as":"item","steps":[...],"concurrency"?} (inner steps use {{item}} and {{index}}; only tool, set, condition, llm and code inside), {"id","type":"wait_for_event","event","timeout_seconds","on_timeout":"fail"|"continue","approvers"?:"any"|"other"|[user ids]} (a human approval: the run waits until the event arrives; its payload is the result; "other" when the approval must come from another credential than the one that started the run, user ids only when the description gives them), {"id","type":"workflow","workflow_id","input"?} (runs another workflow).',
  "Ids are unique, start with a letter and use letters, digits, _ or -. Use only the tools listed.",
  "Link data, never copy it: a value an earlier step returns is written {{steps.<id>.result.<path>}} (a tool step's result is the tool's output, e.g. {{steps.find_customer.result.email}}; an llm step's is {{steps.<id>.result.text}} or .json.<path>; a code step's is what its code returns, {{steps.<id>.result.<path>}}), only for a step that runs before; the run's input is {{input.<name>}}; what the person fills in is a variable, {{<name>}}, listed in \"variables\" with its default or null.",
  'When the description says "if", "only when", "unless" or "otherwise", use a condition step: "field" is a path such as "steps.<id>.result.<path>" or "input.<name>", "operator" one of equals, not_equals, greater_than, greater_than_or_equal, less_than, less_than_or_equal, contains, not_contains, starts_with, ends_with, in, not_in, exists, not_exists, is_empty, is_not_empty, matches; "then" and "else" hold the steps of each branch.',
  `Add "trigger": {"type", "config"} when the description says what starts it: "schedule" ({"type":"cron","cron_expression","timezone"?} or {"type":"interval","interval_seconds"}; "every Monday at 9" is {"type":"cron","cron_expression":"0 9 * * 1"}), "webhook" ({"verify":"hub"|"stripe"|"github"|"slack"|"shopify"|"hubspot"|"typeform"|"token","event_types"?:[...]}; "when a Stripe payment succeeds" is {"verify":"stripe","event_types":["payment_intent.succeeded"]}; the run's input is {event, event_id, event_type, received_at} for a provider, so link {{input.event.<path>}}), "poll" ({"tool","arguments"?,"interval_seconds","items_path","id_path","emit"?:"each"|"batch"}; each new item is {{input.item}}) or "manual" ({}).`,
].join("\n");

let answerSchema: JsonSchema | undefined;

/**
 * The JSON Schema of the builder's answer, derived from the step schema the hub validates with
 * (so the two never drift), for the provider's structured output. Built once, on first use.
 */
export function workflowAnswerSchema(): JsonSchema {
  if (answerSchema) return answerSchema;
  const answer = z.object({
    steps: z.array(StepSchema).min(1),
    variables: z.record(z.string(), z.unknown()).optional(),
    trigger: z.object({ type: z.enum(["manual", "schedule", "webhook", "poll"]), config: z.record(z.string(), z.unknown()) }).optional(),
  });
  // io "input": defaults (arguments, output, on_timeout…) need not be sent.
  const { $schema: _dialect, ...schema } = z.toJSONSchema(answer, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  answerSchema = schema as JsonSchema;
  return answerSchema;
}

const REFERENCE = /\{\{\s*steps\.([A-Za-z][A-Za-z0-9_-]*)/g;

/**
 * Links that cannot resolve: a `{{steps.<id>…}}` naming no step, or one that has not run yet at
 * that point (steps run in order; a branch or loop sees what ran before it and its own earlier
 * steps; the steps after a branch or loop may read what ran inside it).
 */
export function danglingLinks(steps: unknown[], field = "steps"): { location: string; field: string; message: string }[] {
  const idsIn = (list: unknown[], into: Set<string>) => {
    for (const step of list) {
      if (!isObject(step)) continue;
      if (typeof step.id === "string") into.add(step.id);
      for (const key of ["then", "else", "steps"]) if (Array.isArray(step[key])) idsIn(step[key] as unknown[], into);
    }
    return into;
  };
  const all = idsIn(steps, new Set());
  const errors: { location: string; field: string; message: string }[] = [];
  const walk = (list: unknown[], before: Set<string>, path: string) => {
    const seen = new Set(before);
    list.forEach((step, i) => {
      if (!isObject(step)) return;
      const { then: thenSteps, else: elseSteps, steps: inner, ...own } = step;
      for (const match of JSON.stringify(own).matchAll(REFERENCE)) {
        const id = match[1]!;
        if (seen.has(id)) continue;
        const message = all.has(id) ? `{{steps.${id}…}} refers to a step that has not run yet here.` : `{{steps.${id}…}} names no step.`;
        errors.push({ location: "body", field: `${path}.${i}`, message });
      }
      for (const [key, nested] of [
        ["then", thenSteps],
        ["else", elseSteps],
        ["steps", inner],
      ] as const) {
        if (Array.isArray(nested)) walk(nested, seen, `${path}.${i}.${key}`);
      }
      // What ran inside it (a branch taken, a loop's steps) may be read after it.
      idsIn([step], seen);
    });
  };
  walk(steps, new Set(), field);
  return errors;
}

const isObject = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === "object" && !Array.isArray(value);
