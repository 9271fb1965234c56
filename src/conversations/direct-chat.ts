import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { resolveProvider } from "../llm/providers";
import { ProviderError } from "../llm/types";
import { governedProvider } from "../usage/governed-provider";

/**
 * One question to a model provider, no tools and no message stored; a provider failure is
 * `provider_failed`. The request is still the account's: budgeted and in the ledger.
 */
export async function chatDirectly(ctx: ServiceContext, input: { content: string; provider?: string | null }, signal?: AbortSignal) {
  const provider = governedProvider(ctx, await resolveProvider(ctx, input.provider), {});
  try {
    const answer = await provider.generate({ messages: [{ role: "user", content: input.content }], tools: [], signal });
    return { content: answer.text, provider: provider.id, model: answer.model, tokens_used: answer.usage.inputTokens + answer.usage.outputTokens };
  } catch (error) {
    if (error instanceof ProviderError) throw new HubError("provider_failed", error.message);
    throw error;
  }
}
