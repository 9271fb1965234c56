import { verifyGithub } from "./github";
import { verifyHubspot } from "./hubspot";
import { verifyShopify } from "./shopify";
import { verifySlack } from "./slack";
import { verifyStripe } from "./stripe";
import { verifyToken } from "./token";
import { type InboundDelivery, type ProviderScheme, type SchemeOutcome, type SchemeVerifier, rejected } from "./types";
import { verifyTypeform } from "./typeform";

export { PROVIDER_SCHEMES } from "./types";
export type { InboundDelivery, ProviderScheme, SchemeOutcome } from "./types";

const VERIFIERS: Record<ProviderScheme, SchemeVerifier> = {
  stripe: verifyStripe,
  github: verifyGithub,
  slack: verifySlack,
  shopify: verifyShopify,
  hubspot: verifyHubspot,
  typeform: verifyTypeform,
  token: verifyToken,
};

/**
 * Checks a delivery the way its provider signs it (DESIGN.md §5, "Webhook verification"). Pure:
 * the caller brings the agent's secret and the time, and turns the outcome into 401, 200 or a run.
 */
export async function verifyProviderDelivery(scheme: ProviderScheme, secret: string, delivery: InboundDelivery, nowMs: number): Promise<SchemeOutcome> {
  // An empty secret would make an empty token (or a MAC anyone can compute) pass.
  if (!secret) return rejected("No webhook secret is set for this agent.");
  const verify = Object.hasOwn(VERIFIERS, scheme) ? VERIFIERS[scheme] : undefined;
  if (!verify) return rejected("This agent's webhook verification scheme is unknown.");
  return verify(secret, delivery, nowMs);
}
