import type { ModelPrice } from "../core/config";

const price = (inputPerMtok: number, outputPerMtok: number): ModelPrice => ({ inputPerMtok, outputPerMtok });

/**
 * What well-known models cost, in USD per million input and output tokens, from the providers'
 * price lists (standard tier, no caching or batch discount). The Worker var MODEL_PRICES overrides
 * or adds to it; a model in neither costs 0 and its tokens still count.
 */
const BUILT_IN: Record<string, ModelPrice> = {
  // OpenAI
  "gpt-4o": price(2.5, 10),
  "gpt-4o-2024-05-13": price(5, 15),
  "gpt-4o-mini": price(0.15, 0.6),
  "gpt-4.1": price(2, 8),
  "gpt-4.1-mini": price(0.4, 1.6),
  "gpt-4.1-nano": price(0.1, 0.4),
  "gpt-4-turbo": price(10, 30),
  "gpt-4": price(30, 60),
  "gpt-3.5-turbo": price(0.5, 1.5),
  "gpt-5": price(1.25, 10),
  "gpt-5-mini": price(0.25, 2),
  "gpt-5-nano": price(0.05, 0.4),
  o1: price(15, 60),
  "o1-mini": price(1.1, 4.4),
  "o1-pro": price(150, 600),
  o3: price(2, 8),
  "o3-mini": price(1.1, 4.4),
  "o3-pro": price(20, 80),
  "o4-mini": price(1.1, 4.4),
  // Anthropic
  "claude-3-haiku": price(0.25, 1.25),
  "claude-3-sonnet": price(3, 15),
  "claude-3-opus": price(15, 75),
  "claude-3-5-haiku": price(0.8, 4),
  "claude-3-5-sonnet": price(3, 15),
  "claude-3-7-sonnet": price(3, 15),
  "claude-sonnet-4": price(3, 15),
  "claude-sonnet-4-5": price(3, 15),
  "claude-haiku-4-5": price(1, 5),
  "claude-opus-4": price(15, 75),
  "claude-opus-4-1": price(15, 75),
  "claude-opus-4-5": price(5, 25),
};

/** What may follow a known id in a longer one: a date (`-2024-08-06`, `-20241022`, `-latest`), a version (`@…`), a tag (`:…`). */
const SUFFIX_START = /^[-@:]/;

/**
 * The price of `model`: exactly as named (MODEL_PRICES first), else the longest known id it
 * starts with followed by a date or version, so `gpt-4o-2024-08-06` is gpt-4o and
 * `gpt-4o-mini-2024-07-18` gpt-4o-mini. A router's `vendor/model` is read as `model` too.
 */
export function priceOf(model: string, overrides: Record<string, ModelPrice>): ModelPrice | undefined {
  const names = model.includes("/") ? [model, model.slice(model.lastIndexOf("/") + 1)] : [model];
  for (const name of names) {
    const exact = overrides[name] ?? BUILT_IN[name];
    if (exact) return exact;
  }
  for (const name of names) {
    let best: string | undefined;
    for (const known of [...Object.keys(overrides), ...Object.keys(BUILT_IN)]) {
      if (name.startsWith(known) && SUFFIX_START.test(name.slice(known.length)) && known.length > (best?.length ?? 0)) best = known;
    }
    if (best) return overrides[best] ?? BUILT_IN[best];
  }
  return undefined;
}

/** The cost of one answer in nano-dollars (see money.ts); an unpriced model costs 0. */
export function costNanoUsd(price: ModelPrice | undefined, usage: { inputTokens: number; outputTokens: number }): number {
  if (!price) return 0;
  // USD per million tokens × tokens = micro-dollars; × 1,000 = nano-dollars.
  return Math.round((usage.inputTokens * price.inputPerMtok + usage.outputTokens * price.outputPerMtok) * 1000);
}
