import type { FieldError } from "../core/errors";

/** agent_config.budget (DESIGN §6.2): what one turn or run, and the agent in a UTC day, may spend. */
export interface AgentBudget {
  max_tokens_per_turn?: number;
  max_tokens_per_run?: number;
  max_usd_per_run?: number;
  max_usd_per_day?: number;
}

/** The keys, and their bounds: tokens are whole numbers; dollars any positive amount. */
const LIMITS: Record<keyof AgentBudget, { whole: boolean; max: number }> = {
  max_tokens_per_turn: { whole: true, max: 1e12 },
  max_tokens_per_run: { whole: true, max: 1e12 },
  max_usd_per_run: { whole: false, max: 1e6 },
  max_usd_per_day: { whole: false, max: 1e6 },
};

const isKey = (key: string): key is keyof AgentBudget => Object.hasOwn(LIMITS, key);

/** The problems of an agent_config.budget as given (empty when it is fine), each naming `<field>.<key>`. */
export function agentBudgetErrors(value: unknown, field = "agent_config.budget"): FieldError[] {
  if (value === undefined) return [];
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [{ location: "body", field, message: `An object of ${Object.keys(LIMITS).join(", ")} (each optional).` }];
  }
  const errors: FieldError[] = [];
  for (const [key, amount] of Object.entries(value)) {
    if (!isKey(key)) {
      errors.push({ location: "body", field: `${field}.${key.slice(0, 100)}`, message: `Not a budget; use ${Object.keys(LIMITS).join(", ")}.` });
      continue;
    }
    const { whole, max } = LIMITS[key];
    const fits = typeof amount === "number" && Number.isFinite(amount) && amount > 0 && amount <= max && (!whole || Number.isInteger(amount));
    if (!fits) {
      const what = whole
        ? `A whole number of tokens from 1 to ${max.toExponential()}`
        : `A positive amount of US dollars, at most ${max.toLocaleString("en-US")}`;
      errors.push({ location: "body", field: `${field}.${key}`, message: `${what}.` });
    }
  }
  return errors;
}

/** The budget a stored agent_config holds, read leniently (it was checked when saved); none set: undefined. */
export function agentBudgetOf(config: Record<string, unknown> | null | undefined): AgentBudget | undefined {
  const raw = config?.budget;
  if (typeof raw !== "object" || raw === null) return undefined;
  const budget: AgentBudget = {};
  for (const [key, amount] of Object.entries(raw)) {
    if (isKey(key) && typeof amount === "number" && amount > 0) budget[key] = amount;
  }
  return Object.keys(budget).length ? budget : undefined;
}
