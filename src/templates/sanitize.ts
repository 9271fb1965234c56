import type { Template, Workflow } from "../db/schema";
import { HubError } from "../core/errors";
import { validateSteps } from "../workflows/steps";
import { holdsNoLiteral, isSecretName, looksLikeCredential, removeEmbeddedCredentials } from "./secret-patterns";
import { storedValueProblem } from "./stored-values";
import { stripUrlCredentials } from "./url-credentials";

/**
 * What a published template keeps of a workflow: the shape of the automation, never the
 * publisher's credentials. Rules, applied through every step (condition branches included):
 * - a field whose name says it holds a credential (`password`, `api_key`, `accessToken`,
 *   `client_secret`, `authorization`, …), and a value that is a credential by its look (bearer
 *   tokens, provider keys, JWTs, Slack/Discord/Telegram webhook URLs), becomes a
 *   `{{<step>_<field>}}` variable with an empty default; `connection_id` keys are dropped;
 * - header values become `{{header_<name>}}` variables with an empty default, except a few
 *   harmless headers (Content-Type, Accept, …) and values that carry no literal secret
 *   (`{{token}}`, `Bearer {{token}}`);
 * - every web address, inside any text, loses its `user:password@` and the query and fragment
 *   parameters whose names look like credentials (`token`, `key`, `sig`, `code`, `*_key`, …),
 *   unless their value is only placeholders; credentials of a known format inside longer text
 *   are cut out;
 * - workflow variables with a secret name or value keep their name with an empty default;
 * - `trigger_config` keeps only the fields of a trigger (schedule, webhook and poll fields), a
 *   poll's `arguments` cleaned like a step's;
 * - a wait_for_event step's list of approvers (the publisher's people) becomes "other".
 * Placeholders always stay as written: they are references, not secrets.
 */
export interface TemplateContent {
  name: string;
  description: string;
  steps: unknown[];
  variables: Template["variables"];
  triggerConfig: Record<string, unknown>;
}

const SAFE_HEADERS = new Set(["content-type", "accept", "accept-language", "content-language", "user-agent", "cache-control"]);
const TRIGGER_FIELDS = new Set([
  "type",
  "cron_expression",
  "timezone",
  "interval_seconds",
  "event",
  "verify",
  "event_types",
  "tool",
  "items_path",
  "id_path",
  "emit",
  "emit_existing",
]);
/** Step fields that are structure, never data: they are kept as they are. */
const STEP_STRUCTURE = new Set(["id", "type", "tool"]);
const NOT_PUBLISHED = "not published with the template: fill in your own";
const DROP = Symbol("drop");

/** Builds the template's content, or refuses (422) a workflow that cannot make a sound template. */
export function templateContentOf(workflow: Workflow): TemplateContent {
  const problem = storedValueProblem(workflow.steps) ?? storedValueProblem(workflow.variables);
  if (problem === "truncated") {
    throw new HubError("validation_failed", "This workflow holds values that were stored truncated; fix its steps and variables before publishing it.");
  }
  if (problem === "too_deep") throw new HubError("validation_failed", "This workflow's steps or variables nest too deeply to publish.");
  const original = validateSteps(workflow.steps);
  if (original.errors.length) {
    throw new HubError("validation_failed", "This workflow's steps are not valid any more; fix them before publishing.", { errors: original.errors });
  }

  const declared: Template["variables"] = {};
  const declare = (name: string, description: string) => {
    declared[name] = { default: "", description };
    return `{{${name}}}`;
  };
  const steps = workflow.steps.map((step) => cleanStep(step, declare));
  const { errors } = validateSteps(steps);
  if (errors.length) {
    throw new HubError(
      "validation_failed",
      "Publishing takes credentials out of the steps, and without them these steps are not valid; keep such values in {{variables}} and publish again.",
      { errors },
    );
  }
  return {
    name: cleanText(workflow.name) || "Untitled",
    description: cleanText(workflow.description),
    steps,
    variables: { ...cleanVariables(workflow.variables ?? {}), ...declared },
    triggerConfig: cleanTriggerConfig(workflow.triggerConfig ?? {}, declare),
  };
}

type Declare = (name: string, description: string) => string;

function cleanStep(step: unknown, declare: Declare): unknown {
  if (!isRecord(step)) return step;
  const scope = typeof step.id === "string" ? step.id : "step";
  const out: Record<string, unknown> = {};
  for (const [field, child] of Object.entries(step)) {
    if (STEP_STRUCTURE.has(field)) out[field] = child;
    // The publisher's approvers (user ids) must not approve the runs of whoever uses the template:
    // it keeps asking for a second credential instead.
    else if (step.type === "wait_for_event" && field === "approvers" && Array.isArray(child)) out[field] = "other";
    else if (step.type === "condition" && (field === "then" || field === "else") && Array.isArray(child)) {
      out[field] = child.map((branchStep) => cleanStep(branchStep, declare));
    } else {
      const cleaned = cleanValue(child, field, (key) => declare(variableName(scope, key), `Step "${scope}": the value of ${key}, ${NOT_PUBLISHED}.`), declare);
      if (cleaned !== DROP) out[field] = cleaned;
    }
  }
  return out;
}

/**
 * One value, cleaned. `secretFor(key)` is what replaces a credential stored under `key`;
 * `declare` names the variables that header values become.
 */
function cleanValue(node: unknown, key: string | null, secretFor: (key: string) => unknown, declare: Declare): unknown {
  if (key !== null && isSecretName(key) && !(typeof node === "string" && holdsNoLiteral(node)) && node !== null && typeof node !== "boolean") {
    return secretFor(key);
  }
  if (typeof node === "string") {
    if (looksLikeCredential(node)) return key === null ? DROP : secretFor(key);
    return cleanText(node);
  }
  if (Array.isArray(node)) return node.map((item) => cleanValue(item, null, secretFor, declare)).filter((item) => item !== DROP);
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(node)) {
    if (name.replace(/[-_]/g, "").toLowerCase() === "connectionid") continue;
    const cleaned = name.toLowerCase() === "headers" && isRecord(child) ? cleanHeaders(child, declare) : cleanValue(child, name, secretFor, declare);
    if (cleaned !== DROP) out[name] = cleaned;
  }
  return out;
}

function cleanHeaders(headers: Record<string, unknown>, declare: Declare): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    const harmless = typeof value === "string" && (holdsNoLiteral(value) || (SAFE_HEADERS.has(name.toLowerCase()) && !looksLikeCredential(value)));
    kept[name] = harmless ? value : declare(variableName("header", name), `The value of the ${name} header, ${NOT_PUBLISHED}.`);
  }
  return kept;
}

/** The workflow's own variables: names stay, secret values give way to an empty default. */
function cleanVariables(variables: Record<string, unknown>): Template["variables"] {
  const out: Template["variables"] = {};
  for (const [name, value] of Object.entries(variables)) {
    let blanked = false;
    const blank = () => {
      blanked = true;
      return "";
    };
    const cleaned = cleanValue(value, name, blank, blank);
    out[name] = { default: cleaned === DROP ? "" : cleaned, description: blanked ? `The value of ${name} (or part of it), ${NOT_PUBLISHED}.` : "" };
  }
  return out;
}

function cleanTriggerConfig(config: Record<string, unknown>, declare: Declare): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(config)) {
    // A poll's tool arguments are cleaned like a step's: credentials become variables.
    if (name === "arguments" && isRecord(value)) {
      const cleaned = cleanValue(value, null, (key) => declare(variableName("poll", key), `The poll's ${key}, ${NOT_PUBLISHED}.`), declare);
      if (cleaned !== DROP) kept[name] = cleaned;
      continue;
    }
    if (!TRIGGER_FIELDS.has(name)) continue;
    if (typeof value === "number" || typeof value === "boolean") kept[name] = value;
    if (typeof value === "string" && !looksLikeCredential(value)) kept[name] = cleanText(value);
    if (name === "event_types" && Array.isArray(value)) kept[name] = value.filter((type) => typeof type === "string" && !looksLikeCredential(type));
  }
  return kept;
}

/** Text with the credentials of its web addresses and any known-format credential taken out. */
function cleanText(text: string): string {
  return removeEmbeddedCredentials(stripUrlCredentials(text));
}

/** A `{{placeholder}}`-safe variable name: `fetch` + `X-API-Key` → `fetch_x_api_key`. */
function variableName(scope: string, name: string): string {
  const words = `${scope}_${name}`
    .slice(0, 200)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return (/^[a-z_]/.test(words) ? words : `v_${words}`).slice(0, 64);
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
