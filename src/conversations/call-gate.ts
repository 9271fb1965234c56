import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import type { ToolCallRequest } from "../llm/types";
import { accountRules } from "../governance/account-policies";
import { type Effect, type PolicyRule, decidePolicy } from "../governance/policies";
import type { NotifyChannel } from "../approvals/channels/schema";
import type { ApprovalView } from "../approvals/present";
import { requestApproval } from "../approvals/service";
import { prepareToolCall } from "../tools/executor";
import type { ToolInfo } from "../tools/types";

/** Where a turn's approvals belong and how they are asked for (the agent's settings, DESIGN §6.2). */
export interface GateScope {
  /** A chat turn's conversation, or a run's execution and step (an `agent` step). */
  conversationId?: number;
  executionId?: string;
  stepId?: string;
  agentId: string | null;
  rules: PolicyRule[];
  ttlSeconds: number;
  notify: NotifyChannel[];
  /** The hub's origin for links in approval emails (when PUBLIC_URL is unset). */
  origin?: string;
  /** Told of each approval as it is asked for (the conversation streams `approval_requested`). */
  requested(approval: ApprovalView): void;
  /** Set where no one can be asked (a step test): why a call a policy asks about is refused instead. */
  noAsking?: string;
}

/** Longer than any catalog tool's name (platform, MCP and custom names stay within 64). */
const MAX_TOOL_NAME = 200;

export type Verdict = { kind: "allow" } | { kind: "deny"; reason: string } | { kind: "ask"; approval: ApprovalView };

export interface CallGate {
  check(call: ToolCallRequest): Promise<Verdict>;
}

/**
 * What the policies say of each catalog call a model makes: the agent's rules, the account's
 * (read once per turn), then the default that asks before destructive calls. A call held for a
 * person is checked first as it would run (a call that would be refused anyway is refused now,
 * not after someone approved it), then stored as a pending approval.
 */
export function callGate(ctx: ServiceContext, catalog: ToolInfo[], scope: GateScope): CallGate {
  const effects = new Map(catalog.map((tool) => [tool.name, tool.effect]));
  // Read once per turn, on the first call that needs it.
  let account: Promise<PolicyRule[]> | undefined;
  return {
    async check(call) {
      // No catalog tool has a longer name; a model's made-up one is not matched against every glob.
      if (call.name.length > MAX_TOOL_NAME) return { kind: "deny", reason: `No tool is named "${call.name.slice(0, 60)}…".` };
      // A tool the turn's catalog does not list (a tool only the executor finds) counts as a write.
      const effect: Effect = effects.get(call.name) ?? "write";
      account ??= accountRules(ctx);
      const decision = decidePolicy({ tool: call.name, effect, args: call.arguments }, { agent: scope.rules, account: await account });
      if (decision.action === "allow") return { kind: "allow" };
      const rule = decision.rule!;
      if (decision.action === "deny") return { kind: "deny", reason: `Refused by policy (${ruleName(rule)}): the call was not run.` };
      if (scope.noAsking) return { kind: "deny", reason: `Not run: ${ruleName(rule)} asks a person first, and ${scope.noAsking}.` };
      try {
        await prepareToolCall(ctx, call.name, call.arguments, { charge: false });
      } catch (error) {
        if (!(error instanceof HubError)) throw error;
        return { kind: "deny", reason: error.message + (error.errors ? ` ${JSON.stringify(error.errors)}` : "") };
      }
      const approval = await requestApproval(ctx, {
        tool: call.name,
        arguments: call.arguments,
        effect,
        rule,
        toolCallId: call.id,
        conversationId: scope.conversationId,
        executionId: scope.executionId,
        stepId: scope.stepId,
        agentId: scope.agentId,
        ttlSeconds: scope.ttlSeconds,
        notify: scope.notify,
        origin: scope.origin,
      });
      scope.requested(approval);
      return { kind: "ask", approval };
    },
  };
}

const ruleName = (rule: { source: string; index: number }) =>
  rule.source === "default"
    ? "the default rule"
    : `rule ${rule.index + 1} of the ${rule.source === "agent" ? "agent's tool_policies" : "account's tool policies"}`;
