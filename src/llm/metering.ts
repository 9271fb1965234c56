import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { consumeRateLimits, exhaustedOf, rateLimited } from "../http/rate-limit";
import type { RateLimitResult } from "../http/rate-limiter";
import type { ChatProvider } from "./types";

/**
 * Model calls on the deployment's own keys (its OpenAI-compatible or Anthropic key, the Workers
 * AI binding) cost the operator: they are limited to the models the deployment allows and
 * counted per user per minute. Calls on a user's own connection are theirs to pay for: neither.
 * `resolveProvider` applies both, so every caller (chat, workflows, builders) gets them.
 */

/** The models a user may name on the deployment's provider: its configured one and ALLOWED_MODELS. */
export function allowedModels(ctx: ServiceContext, configured: string): string[] {
  return [...new Set([configured, ...(ctx.config.providers.allowedModels ?? [])])];
}

/** Refuses a model the deployment does not allow on its own key (422, field `model`), before any call. */
export function checkModelAllowed(ctx: ServiceContext, providerId: string, configured: string, requested: string): void {
  const allowed = allowedModels(ctx, configured);
  if (allowed.includes(requested)) return;
  const message = `Model "${requested}" is not allowed on this deployment's ${providerId} provider; allowed: ${allowed.join(", ")}. Connect your own ${providerId} key to use other models.`;
  throw new HubError("validation_failed", message, { errors: [{ location: "body", field: "model", message: `Use one of: ${allowed.join(", ")}.` }] });
}

/** Spends one of the caller's model calls on the deployment's keys (MODEL_RATE_LIMIT_PER_MINUTE); 429 when they are used up. */
export async function chargeModelCall(ctx: ServiceContext): Promise<RateLimitResult[]> {
  const limits = await consumeRateLimits(ctx.bindings.RATE_LIMITER, `user:${ctx.workspace.id}`, [
    { name: "models", limit: ctx.config.limits.modelCallsPerMinute },
  ]);
  if (exhaustedOf(limits)) throw rateLimited(limits, { models: "model calls on this deployment's keys" });
  return limits;
}

/** The provider with every call charged first: nothing reaches the model once the limit is spent. */
export function meteredProvider(ctx: ServiceContext, provider: ChatProvider): ChatProvider {
  return {
    ...provider,
    async generate(request) {
      await chargeModelCall(ctx);
      return provider.generate(request);
    },
  };
}
