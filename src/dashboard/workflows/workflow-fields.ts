import type { FieldError } from "../../core/errors";
import { type ParsedJson, isPlainObject, parseJsonField, parseJsonObject } from "../common";

/** What a workflow form may hold, before the service checks the steps themselves. */
export const MAX_NAME = 200;
export const MAX_DESCRIPTION = 5000;

/** The "Steps (JSON)" textarea: an array of step objects (empty means no steps yet), nested no deeper than the API allows. */
export function parseStepsJson(text: string): ParsedJson<unknown[]> {
  if (!text.trim()) return { ok: true, value: [] };
  const parsed = parseJsonField(text, "The steps", { plural: true });
  if (!parsed.ok) return parsed;
  if (!Array.isArray(parsed.value)) return { ok: false, reason: "shape", message: "The steps must be a JSON array of step objects, like [{…}, {…}]." };
  return { ok: true, value: parsed.value };
}

/** The "Input (JSON)" textarea of a run: a JSON object (empty means `{}`), as `input_data` of the API. */
export const parseInputJson = (text: string) => parseJsonObject(text, "The input", '{"email": "ada@example.com"}');

/** A step's place in the list: top-level index, then branch or loop body and index, as deep as it goes. */
export type StepPath = (string | number)[];

/** The element id of a step's box in the graph (unique even when the entered ids are not). */
export const stepAnchor = (path: StepPath) => `step-${path.join("-")}`;

/** `steps[2].then[0]`, the way people read a position in the JSON. */
export const describePath = (path: StepPath) => `steps${path.map((part) => (typeof part === "number" ? `[${part}]` : `.${part}`)).join("")}`;

/** The keys holding nested steps, by the type of the step that holds them. */
const NESTED: Record<string, string[]> = { condition: ["then", "else"], for_each: ["steps"] };

export const nestedKeys = (step: unknown): string[] => NESTED[typeOf(step) ?? ""] ?? [];

/** The steps of a step's `on_error` handler (`{"steps": [...]}`), when it has them. */
export const handlerStepsOf = (step: unknown): unknown[] | undefined =>
  isPlainObject(step) && isPlainObject(step.on_error) && Array.isArray(step.on_error.steps) ? step.on_error.steps : undefined;

/** The step lists inside a step, each with the keys that lead to it: `then`, `else`, a loop's `steps`, `on_error.steps`. */
export function nestedLists(step: unknown): { at: string[]; steps: unknown[] }[] {
  const lists = nestedKeys(step)
    .map((key) => ({ at: [key], steps: isPlainObject(step) ? step[key] : undefined }))
    .filter((list): list is { at: string[]; steps: unknown[] } => Array.isArray(list.steps));
  const handler = handlerStepsOf(step);
  return handler ? [...lists, { at: ["on_error", "steps"], steps: handler }] : lists;
}
export const idOf = (step: unknown) => (isPlainObject(step) && typeof step.id === "string" ? step.id : undefined);
export const typeOf = (step: unknown) => (isPlainObject(step) && typeof step.type === "string" ? step.type : undefined);

/** The problems of one step (or of the list as a whole, with no path). */
export interface StepErrorGroup {
  path?: StepPath;
  /** `Step "check" (condition)`, or its position when it has no id. */
  label: string;
  problems: { field: string; message: string }[];
}

/**
 * Sorts the service's field errors (`steps.2.then.0.condition`, or `steps[2].tool`) under the
 * step they belong to, following the entered JSON into branches and loop bodies, so that each
 * problem can be shown at its step. The groups keep the order of the first problem of each.
 */
export function groupStepErrors(steps: unknown[], errors: FieldError[], field = "steps"): StepErrorGroup[] {
  const groups = new Map<string, StepErrorGroup>();
  for (const error of errors) {
    const tokens = error.field
      .replace(/\[(\d+)\]/g, ".$1")
      .split(".")
      .filter(Boolean)
      .map((token) => (/^\d+$/.test(token) ? Number(token) : token));
    if (tokens[0] === field) tokens.shift();
    const { path, step, rest } = owningStep(steps, tokens);
    const key = path ? stepAnchor(path) : "";
    let group = groups.get(key);
    if (!group) {
      group = { path, label: path ? stepLabel(step, path) : "The step list", problems: [] };
      groups.set(key, group);
    }
    // The service names the top-level step in each message; the group already says which step it is.
    group.problems.push({ field: rest.join("."), message: error.message.replace(/ \(step "[^"]*"\)$/, "") });
  }
  return [...groups.values()];
}

/** The deepest step a field path reaches in the entered steps, and the field inside it. */
function owningStep(steps: unknown[], tokens: (string | number)[]): { path?: StepPath; step?: unknown; rest: (string | number)[] } {
  const first = tokens[0];
  if (typeof first !== "number" || first >= steps.length) return { rest: tokens };
  const path: StepPath = [first];
  let step = steps[first];
  let at = 1;
  for (;;) {
    const list = nestedLists(step).find((candidate) => candidate.at.every((key, i) => tokens[at + i] === key));
    const index = list && tokens[at + list.at.length];
    if (!list || typeof index !== "number" || index >= list.steps.length) break;
    path.push(...list.at, index);
    step = list.steps[index];
    at += list.at.length + 1;
  }
  return { path, step, rest: tokens.slice(at) };
}

/** `Step "check" (condition)`, or its position when it has no id. */
export function stepLabel(step: unknown, path: StepPath): string {
  const id = idOf(step);
  const type = typeOf(step);
  const kind = type ? ` (${type})` : "";
  return id ? `Step "${id}"${kind}` : `The step at ${describePath(path)}${kind}`;
}
