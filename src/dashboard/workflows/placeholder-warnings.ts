import { findPlaceholders } from "../../lib/template";
import { isPlainObject } from "../common";
import { type StepErrorGroup, type StepPath, idOf, nestedLists, stepLabel, typeOf } from "./workflow-fields";

/** Names every run has (DESIGN §5: the run's input, earlier results, the execution, the agent). */
const ALWAYS = new Set(["input", "execution", "agent"]);
/** A step's fields that are never substituted: its identity, and a code step's JavaScript. */
const NOT_SUBSTITUTED = new Set(["id", "type", "name", "code"]);
/** Warnings shown at most: enough to see the pattern, not a page of them. */
const MAX_WARNINGS = 50;

/** What is known to have a value where a step runs. */
interface Known {
  /** Ids of the steps that ran before (nested ones included). */
  steps: Set<string>;
  /** Top-level names: the workflow's variables, earlier `set` values, a loop's item and index. */
  names: Set<string>;
}

/**
 * The placeholders of entered steps that would have no value when their step runs, under the step
 * they belong to: a step result that no earlier step gives (`{{steps.later.result}}`, a typo'd
 * id), or a name that is not a variable, an earlier `set` value or a loop's item. With strict
 * placeholders such a step fails at run time, so the editor says so before saving (the person may
 * still save: a name can come from the run's input, which the editor cannot know). Placeholders
 * with `| default:` always have a value; `{{input.…}}` is the run's to give.
 */
export function placeholderWarnings(steps: unknown[], variables: Record<string, unknown>): StepErrorGroup[] {
  const groups: StepErrorGroup[] = [];
  let count = 0;
  const known: Known = { steps: new Set(), names: new Set(Object.keys(variables)) };
  const walk = (list: unknown[], at: StepPath, scope: Known) => {
    for (const [index, step] of list.entries()) {
      const path = [...at, index];
      const problems = ownPlaceholders(step)
        .map(({ field, placeholder, root, stepId }) => ({ field, message: problemOf(placeholder, root, stepId, scope, step) }))
        .filter((p): p is { field: string; message: string } => p.message !== undefined);
      if (problems.length && count < MAX_WARNINGS) {
        groups.push({ path, label: stepLabel(step, path), problems: problems.slice(0, MAX_WARNINGS - count) });
        count += problems.length;
      }
      const type = typeOf(step);
      for (const list of nestedLists(step)) {
        // A loop's body sees its item and index; a branch sees what was known before the condition;
        // an on_error handler runs after its step failed, so it sees that step (its status and error).
        const handler = list.at[0] === "on_error";
        const itemName = type === "for_each" && isPlainObject(step) && typeof step.as === "string" ? step.as : "item";
        const names = type === "for_each" && !handler ? new Set([...scope.names, itemName, "index"]) : scope.names;
        const own = idOf(step);
        if (handler && own) scope.steps.add(own);
        walk(list.steps, [...path, ...list.at], { steps: scope.steps, names });
      }
      const id = idOf(step);
      if (id) scope.steps.add(id);
      if (type === "set" && isPlainObject(step) && isPlainObject(step.values)) for (const name of Object.keys(step.values)) scope.names.add(name);
    }
  };
  walk(steps, [], known);
  return groups;
}

/** Why a placeholder would have no value where its step runs, or undefined when it has one. */
function problemOf(placeholder: string, root: string, stepId: string | undefined, known: Known, step: unknown): string | undefined {
  if (root === "steps") {
    if (stepId && known.steps.has(stepId)) return undefined;
    if (stepId && stepId === idOf(step)) return `${placeholder} is this step's own result, which it does not have yet.`;
    return stepId
      ? `${placeholder} has no value: no step "${stepId}" runs before this one.`
      : `${placeholder} has no value: name a step, as in {{steps.<id>.result}}.`;
  }
  if (ALWAYS.has(root) || known.names.has(root)) return undefined;
  return `${placeholder} has no value unless the run's input gives "${root}": it is not a variable, an earlier set value or a loop's item.`;
}

/** The placeholders in a step's own fields (not in its nested steps), each with the field it sits in. */
function ownPlaceholders(step: unknown): { field: string; placeholder: string; root: string; stepId?: string }[] {
  if (!isPlainObject(step)) return [];
  const found: { field: string; placeholder: string; root: string; stepId?: string }[] = [];
  const skip = new Set([...NOT_SUBSTITUTED, ...nestedLists(step).map((list) => list.at[0])]);
  const visit = (value: unknown, field: string, depth: number) => {
    if (depth > 64) return;
    if (typeof value === "string") {
      for (const placeholder of findPlaceholders(value)) {
        // `\{{name}}` is written to stay as it is; a default always gives a value.
        if (placeholder.start > 0 && value.charCodeAt(placeholder.start - 1) === 92) continue;
        if (placeholder.filters.some((filter) => filter.name === "default")) continue;
        const [root = "", stepId] = placeholder.path.split(".").map((part) => part.trim());
        found.push({ field, placeholder: `{{${placeholder.path}}}`, root, stepId: root === "steps" ? stepId : undefined });
      }
    } else if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) visit(item, `${field}.${index}`, depth + 1);
    } else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) visit(item, field ? `${field}.${key}` : key, depth + 1);
    }
  };
  for (const [key, value] of Object.entries(step)) if (!skip.has(key)) visit(value, key, 0);
  return found;
}
