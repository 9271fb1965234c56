import { streamText } from "ai";

type StreamCall = Parameters<typeof streamText>[0];

export interface StreamedAnswer {
  text: string;
  toolCalls: { toolCallId: string; toolName: string; input: unknown }[];
  usage: { inputTokens: number; outputTokens: number };
}

/**
 * One model request through the SDK's `streamText`, handing each piece of text to `onTextDelta`
 * as it arrives. Tool calls are taken from the SDK's finished `tool-call` parts (it assembles
 * arguments split across chunks) and usage from the `finish` part (the stream's last chunk).
 * Failures are thrown as the SDK reports them, for the caller to word as it words generateText's.
 */
export async function streamAnswer(call: StreamCall, onTextDelta: (text: string) => void): Promise<StreamedAnswer> {
  const signal = call.abortSignal;
  let reported: unknown;
  // Without an onError the SDK logs every failure itself; ours are thrown to the caller instead.
  const result = streamText({
    ...call,
    onError: ({ error }) => {
      reported ??= error;
    },
  });
  const answer: StreamedAnswer = { text: "", toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } };
  let finished = false;
  // Leaving the loop early (a throw) cancels the stream, and with it the request to the provider.
  for await (const part of result.stream) {
    switch (part.type) {
      case "text-delta":
        // Parts already buffered when the caller aborted are not the caller's any more.
        if (!part.text || signal?.aborted) break;
        answer.text += part.text;
        onTextDelta(part.text);
        break;
      case "tool-call":
        answer.toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
        break;
      case "finish":
        finished = true;
        answer.usage = { inputTokens: part.totalUsage.inputTokens ?? 0, outputTokens: part.totalUsage.outputTokens ?? 0 };
        break;
      case "error":
        throw part.error;
      case "abort":
        throw abortReason(signal);
    }
  }
  if (signal?.aborted) throw abortReason(signal);
  if (reported !== undefined) throw reported;
  // A stream that ends with no finish part was cut short: what came is not the whole answer.
  if (!finished) throw new Error("The answer's stream ended before it finished.");
  return answer;
}

function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException("The request was aborted.", "AbortError");
}
