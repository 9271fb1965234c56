import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { loadConfig } from "../../src/core/config";
import { costNanoUsd, priceOf } from "../../src/usage/prices";

describe("model prices", () => {
  it("knows the well-known models, exactly and under their dated or versioned ids", () => {
    expect(priceOf("gpt-4o", {})).toEqual({ inputPerMtok: 2.5, outputPerMtok: 10 });
    expect(priceOf("gpt-4o-2024-08-06", {})).toEqual({ inputPerMtok: 2.5, outputPerMtok: 10 });
    // The longest known id wins: a mini is not priced as its big sibling.
    expect(priceOf("gpt-4o-mini-2024-07-18", {})).toEqual({ inputPerMtok: 0.15, outputPerMtok: 0.6 });
    expect(priceOf("gpt-4.1-nano-2025-04-14", {})).toEqual({ inputPerMtok: 0.1, outputPerMtok: 0.4 });
    expect(priceOf("o3-mini-2025-01-31", {})).toEqual({ inputPerMtok: 1.1, outputPerMtok: 4.4 });
    expect(priceOf("claude-3-5-sonnet-20241022", {})).toEqual({ inputPerMtok: 3, outputPerMtok: 15 });
    expect(priceOf("claude-3-5-haiku-latest", {})).toEqual({ inputPerMtok: 0.8, outputPerMtok: 4 });
    expect(priceOf("claude-opus-4-1-20250805", {})).toEqual({ inputPerMtok: 15, outputPerMtok: 75 });
    expect(priceOf("claude-sonnet-4-5@20250929", {})).toEqual({ inputPerMtok: 3, outputPerMtok: 15 });
    // A router's vendor/model names the model after the slash.
    expect(priceOf("openai/gpt-4o-mini", {})).toEqual({ inputPerMtok: 0.15, outputPerMtok: 0.6 });
    // Only a date, version or tag may follow a known id: gpt-4o5 is not gpt-4o.
    expect(priceOf("gpt-4o5", {})).toBeUndefined();
    expect(priceOf("llama-3.1-8b", {})).toBeUndefined();
  });

  it("lets MODEL_PRICES override a built-in price or add a model, and prices tokens exactly", () => {
    const overrides = { "gpt-4o": { inputPerMtok: 1, outputPerMtok: 2 }, "house-7b": { inputPerMtok: 0.075, outputPerMtok: 0.3 } };
    expect(priceOf("gpt-4o-2024-11-20", overrides)).toEqual({ inputPerMtok: 1, outputPerMtok: 2 });
    expect(priceOf("gpt-4o-mini", overrides)).toEqual({ inputPerMtok: 0.15, outputPerMtok: 0.6 });
    expect(priceOf("house-7b:q4", overrides)).toEqual({ inputPerMtok: 0.075, outputPerMtok: 0.3 });
    // Nano-dollars: 150 × $0.15 + 30 × $0.60 per million = 22,500 + 18,000.
    expect(costNanoUsd({ inputPerMtok: 0.15, outputPerMtok: 0.6 }, { inputTokens: 150, outputTokens: 30 })).toBe(40_500);
    expect(costNanoUsd({ inputPerMtok: 1.1, outputPerMtok: 4.4 }, { inputTokens: 7, outputTokens: 3 })).toBe(20_900);
    expect(costNanoUsd(priceOf("house-7b", overrides), { inputTokens: 1, outputTokens: 1 })).toBe(375);
    expect(costNanoUsd(undefined, { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(0);
  });

  it("reads MODEL_PRICES once at config load, and ignores (and logs) a setting it cannot trust", () => {
    const withPrices = (value: string) => loadConfig({ ...env, MODEL_PRICES: value } as never).modelPrices;
    expect(withPrices('{"house-7b": {"input_per_mtok": 0.2, "output_per_mtok": 0.8}}')).toEqual({ "house-7b": { inputPerMtok: 0.2, outputPerMtok: 0.8 } });
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      expect(withPrices("not json")).toEqual({});
      expect(withPrices('{"house-7b": {"input_per_mtok": -1, "output_per_mtok": 0.8}}')).toEqual({});
      expect(withPrices('{"a": {"input_per_mtok": 1, "output_per_mtok": 1}, "b": {"input": 1}}')).toEqual({});
      expect(withPrices("[]")).toEqual({});
      expect(logged.mock.calls.map((call) => JSON.parse(String(call[0])).message)).toEqual([
        "MODEL_PRICES is ignored: it is not a JSON object; built-in prices apply.",
        'MODEL_PRICES is ignored: the price of "house-7b" is not {input_per_mtok, output_per_mtok} in USD; built-in prices apply.',
        'MODEL_PRICES is ignored: the price of "b" is not {input_per_mtok, output_per_mtok} in USD; built-in prices apply.',
        "MODEL_PRICES is ignored: it is not a JSON object; built-in prices apply.",
      ]);
    } finally {
      logged.mockRestore();
    }
    expect(loadConfig({ ...env, MODEL_PRICES: undefined } as never).modelPrices).toEqual({});
  });
});
