import { nanoUsdOf, usdOf } from "./money";

/** What model requests spent, as messages and step records show it (DESIGN §6.2 Ledger). */
export interface ModelUsage {
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  /** The model of the last request counted. */
  model: string;
}

/** A running total of model requests, in the ledger's units. */
export interface UsageTally {
  inputTokens: number;
  outputTokens: number;
  nanoUsd: number;
  model: string | null;
}

export const emptyTally = (): UsageTally => ({ inputTokens: 0, outputTokens: 0, nanoUsd: 0, model: null });

/** The tally as shown; null when no request got an answer. */
export const presentTally = (tally: UsageTally): ModelUsage | null =>
  tally.model === null ? null : { input_tokens: tally.inputTokens, output_tokens: tally.outputTokens, cost_usd: usdOf(tally.nanoUsd), model: tally.model };

/** Two usages together (a step's attempts): costs added in nano-dollars, so no float error builds up. */
export function addUsage(earlier: ModelUsage | null | undefined, later: ModelUsage | null | undefined): ModelUsage | null {
  if (!earlier) return later ?? null;
  if (!later) return earlier;
  return {
    input_tokens: earlier.input_tokens + later.input_tokens,
    output_tokens: earlier.output_tokens + later.output_tokens,
    cost_usd: usdOf(nanoUsdOf(earlier.cost_usd) + nanoUsdOf(later.cost_usd)),
    model: later.model,
  };
}
