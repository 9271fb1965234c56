/** What the provider's signing secret is sealed under: it opens for this agent only. */
export const providerSecretLabel = (agentId: string) => `agent:${agentId}:provider_secret`;
