import type { Template, Workflow } from "../db/schema";
import { ApiError } from "../http/errors";
import { findPlaceholders } from "../lib/template";
import { validateSteps } from "../workflows/steps";

/**
 * What a published template keeps of a workflow: the shape of the automation, never the
 * publisher's credentials. Rules, applied through steps (branches included) and variables:
 * - `connection_id` keys and keys that name a secret (password, token, api_key, authorization,
 *   cookie, credential, signature, …) are dropped, and so are values that look like credentials;
 * - header values become `{{header_<name>}}` variables with an empty default, except a few
 *   harmless ones (Content-Type, Accept, …) and values that are already placeholders;
 * - URLs lose their user:password and every query parameter whose name looks like a credential;
 * - `trigger_config` keeps only schedule and event fields (type, cron_expression, timezone,
 *   interval_seconds, event).
 */
export interface TemplateContent {
  steps: unknown[];
  variables: Template["variables"];
  triggerConfig: Record<string, unknown>;
}

const SECRET_KEY = /pass(word|phrase)?|secret|token|api[_-]?key|apikey|authori[sz]ation|cookie|credential|private[_-]?key|signature|session/i;
const SECRET_QUERY =
  /^(token|key|api[_-]?key|apikey|secret|password|pass|pwd|auth|authorization|sig|signature|code|access[_-]?token|refresh[_-]?token|client[_-]?secret|session|jwt|bearer|x-amz-[a-z-]+)$/i;
const SECRET_VALUE =
  /^(Bearer\s+\S+|Basic\s+\S+|ahk_(live|test)_\S+|ah[rsz]_\S+|whsec_\S+|sk-[A-Za-z0-9_-]{10,}|sk-ant-\S+|xox[abpr]-\S+|pat-\S+|re_[A-Za-z0-9_]{10,}|gh[pousr]_\S+|eyJ[\w-]+\.[\w-]+\.[\w-]+)$/;
const SAFE_HEADERS = new Set(["content-type", "accept", "accept-language", "content-language", "user-agent", "cache-control"]);
const TRIGGER_FIELDS = new Set(["type", "cron_expression", "timezone", "interval_seconds", "event"]);
const DROP = Symbol("drop");

const isPlaceholderOnly = (text: string) => {
  const found = findPlaceholders(text);
  return found.length === 1 && found[0]!.start === 0 && found[0]!.end === text.length;
};

/** Builds the template's content, or refuses (422) a workflow that cannot make a sound template. */
export function templateContentOf(workflow: Workflow): TemplateContent {
  if (containsTruncation(workflow.steps) || containsTruncation(workflow.variables)) {
    throw new ApiError("validation_failed", "This workflow holds values that were stored truncated; fix its steps and variables before publishing it.");
  }
  const headerVariables: Template["variables"] = {};
  const clean = (node: unknown): unknown => {
    if (typeof node === "string") return cleanString(node);
    if (Array.isArray(node)) return node.map((child) => clean(child)).filter((child) => child !== DROP);
    if (node === null || typeof node !== "object") return node;
    const entries: [string, unknown][] = [];
    for (const [name, child] of Object.entries(node)) {
      if (name === "connection_id" || SECRET_KEY.test(name)) continue;
      const isHeaders = name.toLowerCase() === "headers" && child !== null && typeof child === "object" && !Array.isArray(child);
      const value = isHeaders ? cleanHeaders(child as Record<string, unknown>, headerVariables) : clean(child);
      if (value !== DROP) entries.push([name, value]);
    }
    return Object.fromEntries(entries);
  };

  const steps = clean(workflow.steps) as unknown[];
  const { errors } = validateSteps(steps);
  if (errors.length) {
    throw new ApiError("validation_failed", "This workflow's steps are not valid any more; fix them before publishing.", { errors });
  }
  const variables: Template["variables"] = {};
  for (const [name, value] of Object.entries(workflow.variables ?? {})) {
    if (SECRET_KEY.test(name)) continue;
    const cleaned = clean(value);
    if (cleaned !== DROP) variables[name] = { default: cleaned, description: "" };
  }
  const triggerConfig = Object.fromEntries(
    Object.entries(workflow.triggerConfig ?? {}).filter(
      ([name, value]) => TRIGGER_FIELDS.has(name) && (typeof value === "string" || typeof value === "number") && cleanString(String(value)) !== DROP,
    ),
  );
  return { steps, variables: { ...variables, ...headerVariables }, triggerConfig };
}

function cleanString(text: string): string | typeof DROP {
  if (SECRET_VALUE.test(text.trim())) return DROP;
  return /^https?:\/\//i.test(text) ? cleanUrl(text) : text;
}

/** Drops user:password and credential-named query parameters; placeholders in the URL stay. */
function cleanUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  let changed = Boolean(url.username || url.password);
  url.username = "";
  url.password = "";
  for (const name of [...new Set(url.searchParams.keys())]) {
    const values = url.searchParams.getAll(name);
    if (SECRET_QUERY.test(name) || SECRET_KEY.test(name) || values.some((v) => SECRET_VALUE.test(v))) {
      url.searchParams.delete(name);
      changed = true;
    }
  }
  // Unchanged URLs are kept as written (URL would re-encode `{{placeholders}}`).
  return changed ? url.toString() : text;
}

function cleanHeaders(headers: Record<string, unknown>, variables: Template["variables"]): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === "string" && (isPlaceholderOnly(value) || (SAFE_HEADERS.has(name.toLowerCase()) && !SECRET_VALUE.test(value)))) {
      kept[name] = value;
      continue;
    }
    const variable = `header_${name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "")}`.slice(0, 64);
    variables[variable] = { default: "", description: `The value of the ${name} header (not published with the template).` };
    kept[name] = `{{${variable}}}`;
  }
  return kept;
}

/** Whether a value holds a `{truncated: true, preview}` marker left by a size cap. */
function containsTruncation(value: unknown, depth = 0): boolean {
  if (depth > 64 || value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some((child) => containsTruncation(child, depth + 1));
  const record = value as Record<string, unknown>;
  if (record.truncated === true && typeof record.preview === "string") return true;
  return Object.values(record).some((child) => containsTruncation(child, depth + 1));
}
