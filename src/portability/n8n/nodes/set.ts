import { isExpression } from "../expressions";
import { resultOf } from "../items";
import type { NodeContext, NodeResult } from "../types";

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names the hub's run context keeps for itself: a set step may not take them. */
const RESERVED = new Set(["steps", "input", "execution", "agent"]);

interface Field {
  name: string;
  value: unknown;
  type: string;
}

/** A Set node's fields, whatever its version: v3.3+ assignments, v3.0–3.2 fields.values, v1/v2 values.{string,number,boolean}. */
function fieldsOf(p: Record<string, unknown>): Field[] {
  const assignments = (p.assignments as { assignments?: { name: string; value: unknown; type?: string }[] })?.assignments;
  if (assignments) return assignments.map((a) => ({ name: a.name, value: a.value, type: a.type ?? "string" }));
  const values = (p.fields as { values?: Record<string, unknown>[] })?.values;
  if (values) {
    return values.map((v) => {
      const type = String(v.type ?? "stringValue").replace(/Value$/, "");
      return { name: String(v.name ?? ""), value: v[`${type}Value`], type };
    });
  }
  const old = (p.values ?? {}) as Record<string, { name: string; value: unknown }[]>;
  return Object.entries(old).flatMap(([type, list]) => (list ?? []).map((v) => ({ name: v.name, value: v.value, type })));
}

/** Whether the node keeps its input's other fields, by version (n8n's defaults differ between them). */
function keepsOtherFields(ctx: NodeContext): boolean {
  const p = ctx.node.parameters ?? {};
  const version = ctx.node.typeVersion ?? 1;
  let include: unknown;
  if (version >= 3.3) include = p.includeOtherFields === true ? (p.include ?? "all") : "none";
  else if (version >= 3) include = p.include ?? "all";
  else include = p.keepOnlySet === true ? "none" : "all";
  if (include === "selected" || include === "except") ctx.warn(`"Include ${include} input fields" is not kept: all input fields are kept.`);
  return include !== "none";
}

/** A constant of the field's type, as n8n converts it. */
function typed(value: unknown, type: string): unknown {
  if (typeof value !== "string") return value;
  if (type === "number" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  if (type === "boolean" && (value === "true" || value === "false")) return value === "true";
  if ((type === "array" || type === "object" || type === "json") && value.trim()) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

/**
 * Set / Edit Fields → a `set` step. Each field is a variable for the later steps and the step's
 * result; `a.b` names (n8n's dot notation) set `b` inside `a`. A name the hub cannot take as a
 * variable is renamed, with a warning; later `$json` reads of it follow the new name only when
 * the new name is the one written.
 */
export function setNode(ctx: NodeContext): NodeResult {
  const p = ctx.node.parameters ?? {};
  if (p.mode === "raw") return rawSet(ctx, String(p.jsonOutput ?? "{}"));
  const dotNotation = (p.options as { dotNotation?: boolean })?.dotNotation !== false;
  const values: Record<string, unknown> = {};
  for (const field of fieldsOf(p)) {
    const value = isExpression(field.value) ? ctx.value(field.value) : typed(field.value, field.type);
    const path = dotNotation ? field.name.split(".") : [field.name];
    const name = variableName(ctx, path[0]!);
    if (path.length === 1) values[name] = value;
    else {
      let target = objectAt(values, name);
      for (const key of path.slice(1, -1)) target = objectAt(target, key);
      target[path.at(-1)!] = value;
    }
  }
  return setStep(ctx, values);
}

/** The object under `key`, made when there is none. */
function objectAt(parent: Record<string, unknown>, key: string): Record<string, unknown> {
  const current = parent[key];
  if (current && typeof current === "object" && !Array.isArray(current)) return current as Record<string, unknown>;
  const made: Record<string, unknown> = {};
  parent[key] = made;
  return made;
}

function setStep(ctx: NodeContext, values: Record<string, unknown>): NodeResult {
  const keep = keepsOtherFields(ctx);
  // No fields: no step, and nothing of its own to read.
  if (!Object.keys(values).length) return { steps: [], output: keep ? ctx.input : [] };
  const own = resultOf(ctx.stepId, Object.keys(values));
  return { steps: [{ id: ctx.stepId, type: "set", name: ctx.node.name, values }], output: keep ? [...ctx.input, own] : [own] };
}

/** JSON Output mode: a constant JSON object becomes the values; one with expressions is not taken over. */
function rawSet(ctx: NodeContext, json: string): NodeResult {
  const text = json.startsWith("=") ? json.slice(1) : json;
  try {
    if (text.includes("{{")) throw new Error("expressions");
    const parsed = JSON.parse(text);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
    const values = Object.fromEntries(Object.entries(parsed).map(([key, value]) => [variableName(ctx, key), value]));
    return setStep(ctx, values);
  } catch {
    ctx.warn("JSON Output with expressions is not taken over: write its fields as manual mappings.");
    return { steps: [], output: ctx.input };
  }
}

function variableName(ctx: NodeContext, name: string): string {
  let safe = name.replace(/[^A-Za-z0-9_]/g, "_");
  if (!/^[A-Za-z_]/.test(safe)) safe = `_${safe}`;
  if (RESERVED.has(safe)) safe = `${safe}_`;
  if (safe !== name) ctx.warn(`Field "${name}" is named "${safe}": a hub variable is letters, digits and _ and may not be ${[...RESERVED].join(", ")}.`);
  return VARIABLE.test(safe) ? safe : "_";
}
