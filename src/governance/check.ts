import { validationFailed } from "../core/errors";
import { APPROVAL_TTL } from "../approvals/settings";
import { PolicyRulesSchema } from "./policies";

/**
 * Checks agent_config.tool_policies (rules as GET /v1/me/tool-policies holds them) and
 * approval_ttl_seconds (60 s to 7 days): a rule that does not parse would silently never match.
 */
export function checkAgentGovernance(config: Record<string, unknown>, field: string): void {
  if (config.tool_policies !== undefined) {
    const parsed = PolicyRulesSchema.safeParse(config.tool_policies);
    if (!parsed.success)
      throw validationFailed(
        parsed.error.issues.slice(0, 20).map((issue) => ({
          location: "body" as const,
          field: [`${field}.tool_policies`, ...issue.path].join("."),
          message: issue.message,
        })),
        "agent_config.tool_policies holds rules that are not valid.",
      );
  }
  const ttl = config.approval_ttl_seconds;
  if (ttl !== undefined && (!Number.isInteger(ttl) || (ttl as number) < APPROVAL_TTL.min || (ttl as number) > APPROVAL_TTL.max))
    throw validationFailed([
      { location: "body", field: `${field}.approval_ttl_seconds`, message: `A whole number of seconds from ${APPROVAL_TTL.min} to ${APPROVAL_TTL.max}.` },
    ]);
}
