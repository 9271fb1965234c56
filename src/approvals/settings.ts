/** How long an approval waits for a person (agent_config.approval_ttl_seconds, DESIGN §6.2). */
export const APPROVAL_TTL = { default: 86_400, min: 60, max: 7 * 86_400 } as const;

/** The agent's approval_ttl_seconds when it is a whole number in bounds (checked when stored), else the default. */
export function approvalTtlSeconds(config: Record<string, unknown> | null | undefined): number {
  const value = config?.approval_ttl_seconds;
  return Number.isInteger(value) && (value as number) >= APPROVAL_TTL.min && (value as number) <= APPROVAL_TTL.max ? (value as number) : APPROVAL_TTL.default;
}
