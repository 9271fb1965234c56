import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { delegatedContext, runtimeFor } from "../../src/core/context";
import { localProvider } from "../../src/llm/local/provider";
import { resolveProvider } from "../../src/llm/providers";
import { ProviderError, type ChatProvider, type GenerateRequest } from "../../src/llm/types";
import { workersAiProvider } from "../../src/llm/workers-ai";
import { call, newApiKey, newUser } from "../helpers/api";
import { FAKE, anthropic, modelRequests, newScenario, openai, script } from "../conversations/helpers";

/**
 * Providers asked to stream (`onTextDelta`) hand over the answer's text as it comes, and still
 * answer the same result. The fake model server streams each scripted answer in the provider's
 * own wire format (test/fakes/model-streams.mjs) when the request asks for a stream.
 */

type Platform = "openai" | "anthropic";

/** A provider on a user's own connection to the fake, as a turn would resolve it. */
async function connected(platform: Platform, scenario: string): Promise<ChatProvider> {
  const user = await newUser();
  const { key } = await newApiKey(user);
  const model = platform === "openai" ? "fake-gpt" : "fake-claude";
  const response = await call("/v1/connections", {
    token: key,
    json: { platform, name: "Model", config: { api_key: "sk-test-0123456789abcdef", base_url: `${FAKE()}/s/${scenario}`, model } },
  });
  expect(response.status).toBe(201);
  return resolveProvider(delegatedContext(runtimeFor(env), user.id, "key_0"), platform);
}

const ask = (content: string, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content },
  ],
  tools: [
    {
      name: "weather_lookup",
      description: "The weather in a city.",
      inputSchema: { type: "object", properties: { city: { type: "string" }, days: { type: "number" } }, required: ["city"] },
    },
  ],
  ...extra,
});

/** The fake's records of the scenario's requests, waited for until `ready` holds (the fake sees a hang-up a moment later). */
async function requestsOnceSettled(scenario: string, ready: (requests: any[]) => boolean): Promise<any[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const requests = await modelRequests(scenario);
    if (ready(requests)) return requests;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return modelRequests(scenario);
}

const TEXT = "The forecast for Lisbon is sunny with a light breeze, and warm all week.";
const ARGS = { city: "Lisbon, Portugal", days: 5 };

const answers = {
  openai: {
    text: () => openai.text(TEXT, { prompt_tokens: 61, completion_tokens: 17 }),
    tools: () =>
      openai.toolCalls(
        [
          { id: "call_a", name: "weather_lookup", args: ARGS },
          { id: "call_b", name: "weather_lookup", args: { city: "Porto" } },
        ],
        { prompt_tokens: 70, completion_tokens: 33 },
      ),
    usage: { text: { inputTokens: 61, outputTokens: 17 }, tools: { inputTokens: 70, outputTokens: 33 } },
  },
  anthropic: {
    text: () => anthropic.text(TEXT, { input_tokens: 52, output_tokens: 19 }),
    tools: () =>
      anthropic.toolUse(
        [
          { id: "toolu_a", name: "weather_lookup", input: ARGS },
          { id: "toolu_b", name: "weather_lookup", input: { city: "Porto" } },
        ],
        { input_tokens: 80, output_tokens: 41 },
      ),
    usage: { text: { inputTokens: 52, outputTokens: 19 }, tools: { inputTokens: 80, outputTokens: 41 } },
  },
};

describe.each(["openai", "anthropic"] as const)("the %s provider streams", (platform) => {
  it("hands the text over in pieces, in order, that join to the answer; usage comes from the stream's end", async () => {
    const scenario = newScenario(`stream-text-${platform}`);
    const provider = await connected(platform, scenario);
    await script(scenario, [answers[platform].text()]);
    const deltas: string[] = [];
    const result = await provider.generate(ask("Weather in Lisbon?", { onTextDelta: (text) => deltas.push(text) }));
    expect(result).toMatchObject({ text: TEXT, toolCalls: [], usage: answers[platform].usage.text });
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join("")).toBe(TEXT);

    const [sent] = await modelRequests(scenario);
    expect(sent.body.stream).toBe(true);
    if (platform === "openai") expect(sent.body.stream_options).toEqual({ include_usage: true });
    expect(sent.stream).toMatchObject({ format: platform, completed: true, client_closed: false });
  });

  it("assembles tool calls whose arguments came split across chunks", async () => {
    const scenario = newScenario(`stream-tools-${platform}`);
    const provider = await connected(platform, scenario);
    await script(scenario, [answers[platform].tools()]);
    const deltas: string[] = [];
    const result = await provider.generate(ask("Weather in Lisbon and Porto?", { onTextDelta: (text) => deltas.push(text) }));
    const ids = platform === "openai" ? ["call_a", "call_b"] : ["toolu_a", "toolu_b"];
    expect(result.toolCalls).toEqual([
      { id: ids[0], name: "weather_lookup", arguments: ARGS },
      { id: ids[1], name: "weather_lookup", arguments: { city: "Porto" } },
    ]);
    expect(result).toMatchObject({ text: "", usage: answers[platform].usage.tools });
    expect(deltas).toEqual([]);
    // The arguments really were split: the fake sent more events than one per call.
    expect((await modelRequests(scenario))[0].stream.chunks_sent).toBeGreaterThan(8);
  });

  it("a stream broken mid-answer is a ProviderError, not a shorter answer", async () => {
    const scenario = newScenario(`stream-broken-${platform}`);
    const provider = await connected(platform, scenario);
    await script(scenario, [{ ...answers[platform].text(), break_after_chunks: 4 }]);
    const deltas: string[] = [];
    const failure = await provider.generate(ask("Weather?", { onTextDelta: (text) => deltas.push(text) })).catch((error) => error);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure.message).toMatch(new RegExp(`^The ${platform} provider failed`));
    // What came before the cut was handed over; the answer was not.
    expect(deltas.length).toBeGreaterThan(0);
    expect(TEXT.startsWith(deltas.join(""))).toBe(true);
    expect((await modelRequests(scenario))[0].stream).toMatchObject({ broken: true, chunks_sent: 4 });
  });

  it("the provider's own error event mid-stream is a ProviderError", async () => {
    const scenario = newScenario(`stream-error-${platform}`);
    const provider = await connected(platform, scenario);
    await script(scenario, [{ ...answers[platform].text(), error_after_chunks: 5 }]);
    const failure = await provider.generate(ask("Weather?", { onTextDelta: () => undefined })).catch((error) => error);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure.message).toContain(platform === "anthropic" ? "Overloaded" : "The server had an error");
  });

  it("a refusal before the stream (429 with Retry-After) is worded as a whole answer's is", async () => {
    const scenario = newScenario(`stream-refused-${platform}`);
    const provider = await connected(platform, scenario);
    const refusal =
      platform === "openai"
        ? { error: { message: "Rate limit reached for requests", type: "requests", param: null, code: "rate_limit_exceeded" } }
        : { type: "error", error: { type: "rate_limit_error", message: "Number of requests has exceeded your rate limit" } };
    // Retry-After 0: the SDK's one retry goes at once and is refused again.
    const refused = { status: 429, body: refusal, headers: { "Retry-After": "0" } };
    await script(scenario, [refused, refused, refused, refused]);
    const streamed = await provider.generate(ask("Weather?", { onTextDelta: () => undefined })).catch((error) => error);
    const whole = await provider.generate(ask("Weather?")).catch((error) => error);
    expect(streamed).toBeInstanceOf(ProviderError);
    expect(streamed.message).toContain(platform === "openai" ? "Rate limit reached" : "exceeded your rate limit");
    expect(streamed.message).toBe(whole.message);
    expect((await modelRequests(scenario)).map((r: any) => Boolean(r.body.stream))).toEqual([true, true, false, false]);
  });

  it("an abort stops the stream and hangs up on the provider", async () => {
    const scenario = newScenario(`stream-abort-${platform}`);
    const provider = await connected(platform, scenario);
    await script(scenario, [{ ...answers[platform].text(), chunk_delay_ms: 100 }]);
    const stop = new AbortController();
    const deltas: string[] = [];
    const failure = await provider
      .generate(
        ask("Weather?", {
          signal: stop.signal,
          onTextDelta: (text) => {
            deltas.push(text);
            if (deltas.length === 2) stop.abort();
          },
        }),
      )
      .catch((error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(deltas).toHaveLength(2);
    const [sent] = await requestsOnceSettled(scenario, (requests) => requests[0]?.stream?.client_closed);
    expect(sent.stream).toMatchObject({ completed: false, client_closed: true });
  });

  it("structured output is asked whole, and its text handed over once", async () => {
    const scenario = newScenario(`stream-structured-${platform}`);
    const provider = await connected(platform, scenario);
    const json = '{"city":"Lisbon"}';
    await script(scenario, [platform === "openai" ? openai.text(json) : anthropic.toolUse([{ id: "toolu_json", name: "json", input: { city: "Lisbon" } }])]);
    const deltas: string[] = [];
    const result = await provider.generate({
      messages: [{ role: "user", content: "Which city?" }],
      tools: [],
      output: { name: "city", schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
      onTextDelta: (text) => deltas.push(text),
    });
    expect(JSON.parse(result.text)).toEqual({ city: "Lisbon" });
    expect(deltas).toEqual([result.text]);
    expect((await modelRequests(scenario))[0].body.stream).toBeUndefined();
  });
});

describe("providers that answer whole", () => {
  it("the local provider hands its whole text over once, before answering", async () => {
    const deltas: string[] = [];
    const result = await localProvider().generate({
      messages: [{ role: "user", content: "hello there" }],
      tools: [],
      onTextDelta: (text) => deltas.push(text),
    });
    expect(result.text.length).toBeGreaterThan(0);
    expect(deltas).toEqual([result.text]);
  });

  it("the local provider hands nothing over for an answer that is only a tool call", async () => {
    const deltas: string[] = [];
    const result = await localProvider().generate({
      messages: [{ role: "user", content: "weather_lookup city: Lisbon" }],
      tools: ask("").tools,
      onTextDelta: (text) => deltas.push(text),
    });
    expect(result.toolCalls).toHaveLength(1);
    expect(deltas).toEqual([]);
  });
});

/** A Workers AI binding that answers `stream: true` with these server-sent events, and records what it was asked. */
function bindingStreaming(events: string[], asked: unknown[] = []): Ai {
  const encoder = new TextEncoder();
  return {
    run: async (_model: string, inputs: unknown) => {
      asked.push(inputs);
      const body = events.join("");
      // Cut through the middle of events, as the network may.
      const pieces = body.match(/[\s\S]{1,23}/g) ?? [];
      return new ReadableStream<Uint8Array>({
        start(controller) {
          for (const piece of pieces) controller.enqueue(encoder.encode(piece));
          controller.close();
        },
      });
    },
  } as unknown as Ai;
}

const sse = (data: unknown) => `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;

describe("the workers-ai provider streams", () => {
  it("reads `response` pieces, then tool calls and usage from the last events", async () => {
    const asked: any[] = [];
    const ai = bindingStreaming(
      [
        sse({ response: "Checking ", p: "abc" }),
        sse({ response: "the weather." }),
        sse({ response: "", tool_calls: [{ name: "weather_lookup", arguments: { city: "Lisbon" } }] }),
        sse({ response: "", usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } }),
        sse("[DONE]"),
      ],
      asked,
    );
    const deltas: string[] = [];
    const result = await workersAiProvider(ai, "@cf/test/model").generate(ask("Weather?", { onTextDelta: (text) => deltas.push(text) }));
    expect(asked[0].stream).toBe(true);
    expect(deltas).toEqual(["Checking ", "the weather."]);
    expect(result).toMatchObject({ text: "Checking the weather.", usage: { inputTokens: 12, outputTokens: 7 } });
    expect(result.toolCalls).toEqual([{ id: expect.stringMatching(/^wai_/), name: "weather_lookup", arguments: { city: "Lisbon" } }]);
  });

  it("joins OpenAI-style tool call pieces by index and reads choices' deltas", async () => {
    const ai = bindingStreaming([
      sse({ choices: [{ delta: { content: "On it" } }] }),
      sse({ choices: [{ delta: { tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "weather_lookup", arguments: '{"ci' } }] } }] }),
      sse({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: 'ty":"Lis' } }] } }] }),
      sse({ tool_calls: [{ index: 0, function: { arguments: 'bon"}' } }], usage: { prompt_tokens: 3, completion_tokens: 4 } }),
      sse("[DONE]"),
    ]);
    const deltas: string[] = [];
    const result = await workersAiProvider(ai, "@cf/test/model").generate(ask("Weather?", { onTextDelta: (text) => deltas.push(text) }));
    expect(deltas).toEqual(["On it"]);
    expect(result.toolCalls).toMatchObject([{ name: "weather_lookup", arguments: { city: "Lisbon" } }]);
    expect(result.usage).toEqual({ inputTokens: 3, outputTokens: 4 });
  });

  it("an event that is not JSON is a ProviderError", async () => {
    const ai = bindingStreaming([sse({ response: "Hi" }), "data: {oops\n\n", sse("[DONE]")]);
    const failure = await workersAiProvider(ai, "@cf/test/model")
      .generate(ask("Hi", { onTextDelta: () => undefined }))
      .catch((error) => error);
    expect(failure).toBeInstanceOf(ProviderError);
  });

  it("without a listener it asks whole, as before", async () => {
    const asked: any[] = [];
    const ai = {
      run: async (_model: string, inputs: unknown) => {
        asked.push(inputs);
        return { response: "Whole." };
      },
    } as unknown as Ai;
    const result = await workersAiProvider(ai, "@cf/test/model").generate(ask("Hi"));
    expect(result.text).toBe("Whole.");
    expect(asked[0].stream).toBeUndefined();
  });
});
