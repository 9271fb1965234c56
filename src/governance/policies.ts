import { z } from "@hono/zod-openapi";
import { type Condition, evaluateCondition } from "../lib/conditions";
import { ConditionSchema } from "../lib/condition-schema";
import type { ToolEffect } from "../core/tool-effects";

/** What a call does to the world (DESIGN §6.2); every catalog tool declares or derives one. */
export type Effect = ToolEffect;
export type PolicyAction = "allow" | "ask" | "deny";

/** Rules one list (an agent's, the account's) holds at most: each call walks them all. */
export const MAX_RULES = 50;

export const PolicyRuleSchema = z
  .object({
    tool: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[A-Za-z0-9_.*?-]+$/, "A tool name, or a glob of one with * and ?.")
      .optional()
      .describe('A tool name, or a glob: "slack_*" matches every Slack tool.'),
    effect: z.enum(["read", "write", "destructive"]).optional().describe("Matches only tools of this effect."),
    // Described to OpenAPI as an object (the condition's own schema is recursive), checked below.
    when: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('A condition as in condition steps, over the call as `{args, tool, effect}`: `{field: "args.amount", operator: "greater_than", value: 100}`.'),
    action: z.enum(["allow", "ask", "deny"]),
  })
  .strict()
  .superRefine((rule, check) => {
    if (rule.when === undefined) return;
    const parsed = ConditionSchema.safeParse(rule.when);
    if (!parsed.success) for (const issue of parsed.error.issues.slice(0, 5)) check.addIssue({ ...issue, path: ["when", ...issue.path] } as never);
  })
  .openapi("ToolPolicyRule");
export type PolicyRule = z.infer<typeof PolicyRuleSchema>;

export const PolicyRulesSchema = z.array(PolicyRuleSchema).max(MAX_RULES);

/** Asks a person before any destructive call, whatever the agent and the account say nothing about. */
export const DEFAULT_RULES: PolicyRule[] = [{ effect: "destructive", action: "ask" }];

export type RuleSource = "agent" | "account" | "default";

/** The rule that decided, with where it came from (an approval shows it); null: nothing matched. */
export interface PolicyDecision {
  action: PolicyAction;
  rule: (PolicyRule & { source: RuleSource; index: number }) | null;
}

export interface PolicyCall {
  tool: string;
  effect: Effect;
  args: Record<string, unknown>;
}

/**
 * The first matching rule decides: the agent's rules, then the account's, then DEFAULT_RULES;
 * nothing matched allows the call. A rule matches when its tool glob, effect and condition all
 * do. A condition that cannot be evaluated (a value nested too deep) matches an `ask` or `deny`
 * rule and not an `allow` one: doubt never lets a call through unasked.
 */
export function decidePolicy(call: PolicyCall, lists: { agent?: PolicyRule[]; account?: PolicyRule[] }): PolicyDecision {
  const ordered: [RuleSource, PolicyRule[]][] = [
    ["agent", lists.agent ?? []],
    ["account", lists.account ?? []],
    ["default", DEFAULT_RULES],
  ];
  for (const [source, rules] of ordered) {
    for (const [index, rule] of rules.entries()) {
      if (matches(rule, call)) return { action: rule.action, rule: { ...rule, source, index } };
    }
  }
  return { action: "allow", rule: null };
}

function matches(rule: PolicyRule, call: PolicyCall): boolean {
  if (rule.effect && rule.effect !== call.effect) return false;
  if (rule.tool && !globMatches(rule.tool, call.tool)) return false;
  if (!rule.when) return true;
  try {
    return evaluateCondition(rule.when as Condition, { args: call.args, tool: call.tool, effect: call.effect }).result;
  } catch {
    return rule.action !== "allow";
  }
}

/**
 * `*` any run of characters, `?` one; everything else literal; the whole name must match. The
 * classic two-pointer walk (back to the last star on a mismatch): at most name × glob steps, so
 * a glob of many stars costs no more than a short one (a regex of `.*`s could backtrack wildly).
 */
export function globMatches(glob: string, name: string): boolean {
  let g = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (g < glob.length && (glob[g] === "?" || glob[g] === name[n])) {
      g++;
      n++;
    } else if (g < glob.length && glob[g] === "*") {
      star = g++;
      resume = n;
    } else if (star >= 0) {
      g = star + 1;
      n = ++resume;
    } else return false;
  }
  while (glob[g] === "*") g++;
  return g === glob.length;
}

/** The rules an agent_config holds (`tool_policies`), as checked when it was stored; anything else: none. */
export function agentRulesOf(config: Record<string, unknown> | null | undefined): PolicyRule[] {
  const parsed = PolicyRulesSchema.safeParse(config?.tool_policies);
  return parsed.success ? parsed.data : [];
}
