import type { FieldError } from "../../core/errors";

/** What a workflow form may hold, before the service checks the steps themselves. */
export const MAX_NAME = 200;
export const MAX_DESCRIPTION = 5000;

/** A JSON field of a form: its value, or the sentence saying why it cannot be read. */
export type ParsedJson<T> = { ok: true; value: T } | { ok: false; message: string };

/** The "Steps (JSON)" textarea: an array of step objects (empty means no steps yet). */
export function parseStepsJson(text: string): ParsedJson<unknown[]> {
  if (!text.trim()) return { ok: true, value: [] };
  const parsed = parseJson(text, "The steps");
  if (!parsed.ok) return parsed;
  if (!Array.isArray(parsed.value)) return { ok: false, message: "The steps must be a JSON array of step objects, like [{…}, {…}]." };
  return { ok: true, value: parsed.value };
}

/** The "Input (JSON)" textarea of a run: a JSON object (empty means `{}`). */
export function parseInputJson(text: string): ParsedJson<Record<string, unknown>> {
  if (!text.trim()) return { ok: true, value: {} };
  const parsed = parseJson(text, "The input");
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, message: 'The input must be a JSON object, like {"email": "ada@example.com"}.' };
  return { ok: true, value: value as Record<string, unknown> };
}

function parseJson(text: string, what: string): ParsedJson<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    // The parser's own words name the position of the mistake, which is what the person needs.
    return { ok: false, message: `${what} are not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** A step's place in the list: top-level index, then branch or loop body and index, as deep as it goes. */
export type StepPath = (string | number)[];

/** The element id of a step's box in the graph (unique even when the entered ids are not). */
export const stepAnchor = (path: StepPath) => `step-${path.join("-")}`;

/** `steps[2].then[0]`, the way people read a position in the JSON. */
export const describePath = (path: StepPath) => `steps${path.map((part) => (typeof part === "number" ? `[${part}]` : `.${part}`)).join("")}`;

/** The keys holding nested steps, by the type of the step that holds them. */
const NESTED: Record<string, string[]> = { condition: ["then", "else"], for_each: ["steps"] };

export const nestedKeys = (step: unknown): string[] => NESTED[typeOf(step) ?? ""] ?? [];
export const idOf = (step: unknown) => (isObject(step) && typeof step.id === "string" ? step.id : undefined);
export const typeOf = (step: unknown) => (isObject(step) && typeof step.type === "string" ? step.type : undefined);
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

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
    const key = tokens[at];
    const index = tokens[at + 1];
    const inner = isObject(step) && typeof key === "string" && nestedKeys(step).includes(key) ? step[key] : undefined;
    if (!Array.isArray(inner) || typeof index !== "number" || index >= inner.length) break;
    path.push(key as string, index);
    step = inner[index];
    at += 2;
  }
  return { path, step, rest: tokens.slice(at) };
}

function stepLabel(step: unknown, path: StepPath): string {
  const id = idOf(step);
  const type = typeOf(step);
  const kind = type ? ` (${type})` : "";
  return id ? `Step "${id}"${kind}` : `The step at ${describePath(path)}${kind}`;
}

/** `2025-05-01 09:30:12 UTC`: times are stored and shown in UTC, to the second. */
export function formatTime(value: Date | string | null | undefined): string {
  if (!value) return "—";
  const iso = typeof value === "string" ? value : value.toISOString();
  return `${iso.slice(0, 19).replace("T", " ")} UTC`;
}

/** `350 ms`, `4.2 s`, `3 min 5 s`: a duration at a glance. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
