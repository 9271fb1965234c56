import type { Template } from "../../db/schema";
import { platformsOf } from "../../templates/bind-connections";
import { workflowFromTemplate } from "../../templates/use-template";
import { isPlainObject, parseJsonField, positiveIdOf } from "../common";

/** Variables offered in the form at most; the others keep their defaults (the API can set any). */
export const MAX_VARIABLES_SHOWN = 50;
/** Characters of one variable's value as typed. */
export const MAX_VARIABLE_CHARS = 10_000;

/** How a variable is typed in, from its default: the value sent has the default's type. */
export type VariableKind = "text" | "number" | "boolean" | "json";

export interface VariableSpec {
  name: string;
  description: string;
  kind: VariableKind;
  /** The default, as the form shows it. */
  initial: string;
  /** No default (null in the catalog): `use` refuses the template without a value. */
  required?: boolean;
}

/** What "Use and deploy" asks for: a connection per platform the steps call, and the variables. */
export interface DeployPlan {
  platforms: string[];
  variables: VariableSpec[];
  /** Variables beyond MAX_VARIABLES_SHOWN, which keep their defaults. */
  hiddenVariables: number;
}

/**
 * The platforms and variables of a template as useTemplate will read them: the same workflow
 * copy (which refuses a damaged template with 409, before any form is shown) and the same
 * platform walk that decides which connections are required.
 */
export function deployPlanOf(template: Template, minIntervalSeconds: number): DeployPlan {
  const input = workflowFromTemplate(template, minIntervalSeconds);
  const descriptions = isPlainObject(input.metadata?.variable_descriptions) ? input.metadata.variable_descriptions : {};
  const all = Object.entries(input.variables ?? {});
  const variables = all.slice(0, MAX_VARIABLES_SHOWN).map(([name, value]) => specOf(name, value, descriptions[name]));
  return { platforms: [...platformsOf(input.steps)].sort(), variables, hiddenVariables: all.length - variables.length };
}

function specOf(name: string, value: unknown, description: unknown): VariableSpec {
  const described = typeof description === "string" ? description : "";
  if (value === null) return { name, description: described, kind: "text", initial: "", required: true };
  if (typeof value === "string") return { name, description: described, kind: "text", initial: value };
  if (typeof value === "number") return { name, description: described, kind: "number", initial: String(value) };
  if (typeof value === "boolean") return { name, description: described, kind: "boolean", initial: String(value) };
  return { name, description: described, kind: "json", initial: JSON.stringify(value ?? null, null, 2) };
}

/** Form control names: one per platform and per variable. */
export const connectionInput = (platform: string) => `connection.${platform}`;
export const variableInput = (name: string) => `var.${name}`;

type Form = Record<string, unknown>;
const textOf = (value: unknown) => (typeof value === "string" ? value : "");

/** What was posted, read against the plan: the body useTemplate takes, what to show again, and what is wrong. */
export interface ReadDeployForm {
  name: string;
  connections: Record<string, number>;
  variables: Record<string, unknown>;
  /** By form control name, as typed (connection ids included). */
  values: Record<string, string>;
  errors: Record<string, string>;
}

/**
 * A connection left unchosen is not sent: the service then takes the person's own of that
 * platform, or refuses with 422 naming the platform. Each variable is read as its default's type.
 */
export function readDeployForm(plan: DeployPlan, form: Form): ReadDeployForm {
  const values: Record<string, string> = {};
  const errors: Record<string, string> = {};
  const connections: Record<string, number> = {};
  const variables: Record<string, unknown> = {};
  for (const platform of plan.platforms) {
    const input = connectionInput(platform);
    const typed = textOf(form[input]).trim();
    values[input] = typed;
    if (!typed) continue;
    const id = positiveIdOf(typed);
    if (id === undefined) errors[input] = `Choose one of your ${platform} connections.`;
    else connections[platform] = id;
  }
  for (const spec of plan.variables) {
    const input = variableInput(spec.name);
    const typed = spec.kind === "boolean" ? (textOf(form[input]) === "true" ? "true" : "false") : textOf(form[input]);
    values[input] = typed.slice(0, MAX_VARIABLE_CHARS);
    if (typed.length > MAX_VARIABLE_CHARS) {
      errors[input] = `At most ${MAX_VARIABLE_CHARS.toLocaleString("en-US")} characters.`;
      continue;
    }
    const read = readVariable(spec, typed);
    if ("error" in read) errors[input] = read.error;
    else variables[spec.name] = read.value;
  }
  return { name: textOf(form.name).trim(), connections, variables, values, errors };
}

function readVariable(spec: VariableSpec, typed: string): { value: unknown } | { error: string } {
  if (spec.kind === "text") return { value: typed };
  if (spec.kind === "boolean") return { value: typed === "true" };
  if (spec.kind === "number") {
    const number = Number(typed.trim());
    return typed.trim() && Number.isFinite(number) ? { value: number } : { error: "Type a number, like 3 or 2.5." };
  }
  // `variables.<name>` sits two levels deep in the REST API's body.
  const parsed = parseJsonField(typed, "The value", { depthInBody: 2 });
  return parsed.ok ? { value: parsed.value } : { error: parsed.message };
}
