/**
 * Money in the ledger is whole nano-dollars (1e-9 USD). A price per million tokens with up to three
 * decimals times a token count is a whole number of them, so a sum of costs is exact; the API
 * shows US dollars. 2^53 nano-dollars is about nine million dollars: far past any one account's ledger.
 */
export const NANO_PER_USD = 1_000_000_000;

export const usdOf = (nanoUsd: number): number => nanoUsd / NANO_PER_USD;

export const nanoUsdOf = (usd: number): number => Math.round(usd * NANO_PER_USD);

/** `$0.50`, `$12.34`, `$0.000041`: two decimals, more for amounts under a dollar (a model call is cheap). */
export function formatUsd(usd: number): string {
  return `$${usd.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: usd < 1 ? 6 : 2 })}`;
}

/** `2,150`. */
export const formatCount = (count: number): string => count.toLocaleString("en-US");
