import { ProviderError } from "./types";

/** A tool call as Workers AI words it: whole ({name, arguments}) or in OpenAI's pieces (index, id, function). */
export interface WorkersAiToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
}

export interface WorkersAiStreamed {
  text: string;
  toolCalls: WorkersAiToolCall[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/** One `data:` event of the binding's stream, in any of the shapes its models answer. */
interface StreamEvent {
  response?: unknown;
  tool_calls?: unknown;
  usage?: WorkersAiStreamed["usage"];
  choices?: { delta?: { content?: unknown; tool_calls?: unknown } }[];
}

interface PieceOfCall {
  index?: number;
  id?: string;
  name?: string;
  arguments?: unknown;
  function?: { name?: string; arguments?: unknown };
}

/** The longest event the reader keeps waiting for the end of (the binding's are a few hundred bytes). */
const MAX_EVENT_CHARS = 1_000_000;

/**
 * Reads the Workers AI binding's answer to `stream: true`: server-sent events `data: {...}`,
 * ending with `data: [DONE]`. Text comes as `response` (older models) or as OpenAI-style
 * `choices[0].delta.content`; tool calls and usage come in the last events, either whole or as
 * OpenAI-style pieces whose `arguments` are to be joined by `index`. Shapes not known are skipped
 * rather than refused, since each model family words its events a little differently.
 */
export async function readWorkersAiStream(
  stream: ReadableStream<Uint8Array>,
  onTextDelta: (text: string) => void,
  signal?: AbortSignal,
): Promise<WorkersAiStreamed> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  // The binding takes no signal: cancelling the read is how an abort lets go of the answer.
  const cancel = () => void reader.cancel(signal?.reason).catch(() => undefined);
  signal?.addEventListener("abort", cancel, { once: true });
  const calls = new CallAssembler();
  const answer: WorkersAiStreamed = { text: "", toolCalls: [] };
  let buffered = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw signal.reason;
      if (done) break;
      buffered += value;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      if (buffered.length > MAX_EVENT_CHARS) throw new ProviderError("The workers-ai provider failed: an event of its stream is too long.");
      for (const line of lines) {
        const data = dataOf(line);
        if (data === undefined) continue;
        // Anything after [DONE] is not part of the answer.
        if (data === "[DONE]") return finish(answer, calls);
        take(parseEvent(data), answer, calls, onTextDelta);
      }
    }
    // A stream that closes without [DONE] is taken as ended: the binding reports failures by throwing.
    const last = dataOf(buffered);
    if (last !== undefined && last !== "[DONE]") take(parseEvent(last), answer, calls, onTextDelta);
    return finish(answer, calls);
  } finally {
    signal?.removeEventListener("abort", cancel);
    // Whatever follows (after [DONE], or after a failure) is not read: let the binding go.
    void reader.cancel().catch(() => undefined);
  }
}

function dataOf(line: string): string | undefined {
  const trimmed = line.replace(/\r$/, "");
  if (!trimmed.startsWith("data:")) return undefined;
  return trimmed.slice(5).trim();
}

function parseEvent(data: string): StreamEvent {
  try {
    const event = JSON.parse(data);
    return event && typeof event === "object" ? (event as StreamEvent) : {};
  } catch {
    throw new ProviderError("The workers-ai provider failed: its stream carried an event that is not JSON.");
  }
}

function take(event: StreamEvent, answer: WorkersAiStreamed, calls: CallAssembler, onTextDelta: (text: string) => void): void {
  const delta = event.choices?.[0]?.delta;
  // Some models answer numbers as numbers (a bare `42`): they are text all the same.
  for (const piece of [event.response, delta?.content]) {
    const text = typeof piece === "number" ? String(piece) : typeof piece === "string" ? piece : "";
    if (!text) continue;
    answer.text += text;
    onTextDelta(text);
  }
  for (const list of [event.tool_calls, delta?.tool_calls]) {
    if (Array.isArray(list)) for (const piece of list) if (piece && typeof piece === "object") calls.add(piece as PieceOfCall);
  }
  if (event.usage && typeof event.usage === "object") answer.usage = event.usage;
}

function finish(answer: WorkersAiStreamed, calls: CallAssembler): WorkersAiStreamed {
  answer.toolCalls = calls.calls();
  return answer;
}

/** Joins tool calls sent in pieces (OpenAI's shape, keyed by `index`) and keeps whole ones as they come. */
class CallAssembler {
  private readonly whole: WorkersAiToolCall[] = [];
  private readonly pieces = new Map<number, { name: string; arguments: string }>();

  add(piece: PieceOfCall): void {
    const name = piece.function?.name ?? piece.name;
    const args = piece.function?.arguments ?? piece.arguments;
    if (typeof piece.index !== "number") {
      if (name)
        this.whole.push({ name, arguments: typeof args === "string" ? args : args && typeof args === "object" ? (args as Record<string, unknown>) : {} });
      return;
    }
    const call = this.pieces.get(piece.index) ?? { name: "", arguments: "" };
    if (name) call.name = name;
    if (typeof args === "string") call.arguments += args;
    else if (args && typeof args === "object") call.arguments += JSON.stringify(args);
    this.pieces.set(piece.index, call);
  }

  calls(): WorkersAiToolCall[] {
    const joined = [...this.pieces.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    return [...this.whole, ...joined.filter((call) => call.name)];
  }
}
