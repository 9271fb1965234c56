// Streamed model answers, in the providers' own wire formats, built from the same scripted answer
// body a non-streamed request would get (an OpenAI `chat.completion`, an Anthropic `message`).
// A request asks to stream with `stream: true` in its body; a scripted answer may add:
//   delay_ms            wait this long before the first byte (headers included): time to first token
//   chunk_delay_ms      wait this long between events
//   break_after_chunks  after this many events, close the socket mid-answer (a dropped connection)
//   error_after_chunks  after this many events, send the provider's own in-stream error event and end
// Failures (a status of 400 or more, a 429 with Retry-After) are answered as JSON, not streamed, as
// the real APIs do. What happened is kept on the request's record as `stream`: {format, chunks_sent,
// completed, broken, client_closed} (client_closed: the hub hung up before the answer's end).
//
// OpenAI: https://platform.openai.com/docs/api-reference/chat-streaming
// Anthropic: https://docs.anthropic.com/en/api/messages-streaming

/** Text is sent in word-sized pieces; a tool call's arguments in pieces of this many characters. */
const ARGUMENT_PIECE_CHARS = 7;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The wire format to stream `answer` in for this request, or undefined to answer it whole. */
export function streamFormatOf(request, answer) {
  if (request.body?.stream !== true || (answer.status ?? 200) >= 300) return undefined;
  if (answer.body?.object === "chat.completion") return "openai";
  if (answer.body?.type === "message") return "anthropic";
  return undefined;
}

/** Text in pieces of a word each (with the spaces that follow it), as models emit tokens. */
export function wordsOf(text) {
  const whole = String(text ?? "");
  return whole.match(/\s*\S+\s*/g) ?? (whole ? [whole] : []);
}

/** A string in pieces of `size` characters, cutting through JSON tokens as real streams do. */
export function piecesOf(text, size = ARGUMENT_PIECE_CHARS) {
  const pieces = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

/** OpenAI chat-completion chunks: role, content pieces, tool calls with their arguments in pieces, finish, usage, [DONE]. */
function openaiEvents(request, body) {
  const choice = body.choices?.[0] ?? {};
  const message = choice.message ?? {};
  const includeUsage = request.body?.stream_options?.include_usage === true;
  const chunk = (delta, finishReason = null) => ({
    id: body.id,
    object: "chat.completion.chunk",
    created: body.created,
    model: body.model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    // With include_usage, every chunk carries `usage: null` but the last, which carries the counts.
    ...(includeUsage ? { usage: null } : {}),
  });
  const events = [chunk({ role: "assistant", content: "" })];
  for (const piece of wordsOf(message.content)) events.push(chunk({ content: piece }));
  (message.tool_calls ?? []).forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }));
    for (const piece of piecesOf(call.function.arguments ?? "")) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, choice.finish_reason ?? "stop"));
  if (includeUsage) events.push({ ...chunk({}), choices: [], usage: body.usage ?? null });
  return events.map((data) => ({ data })).concat([{ data: "[DONE]" }]);
}

/** Anthropic message events: message_start, a start/deltas/stop per content block, message_delta, message_stop. */
function anthropicEvents(body) {
  const usage = body.usage ?? { input_tokens: 0, output_tokens: 0 };
  const event = (type, data) => ({ event: type, data: { type, ...data } });
  const events = [
    event("message_start", {
      message: { ...body, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } },
    }),
    event("ping", {}),
  ];
  (body.content ?? []).forEach((block, index) => {
    if (block.type === "text") {
      events.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
      for (const piece of wordsOf(block.text)) events.push(event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    } else if (block.type === "tool_use") {
      events.push(event("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } }));
      // The first input delta is empty, as Anthropic's own are.
      for (const piece of ["", ...piecesOf(JSON.stringify(block.input ?? {}))])
        events.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
    } else {
      events.push(event("content_block_start", { index, content_block: block }));
    }
    events.push(event("content_block_stop", { index }));
  });
  events.push(
    event("message_delta", { delta: { stop_reason: body.stop_reason ?? "end_turn", stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }),
  );
  events.push(event("message_stop", {}));
  return events;
}

/** The provider's own way of failing in the middle of a stream. */
function errorEvent(format) {
  if (format === "anthropic") return { event: "error", data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } };
  return { data: { error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null } } };
}

function encode({ event, data }) {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
}

/** Answers `answer` (already waited for its delay_ms) as a stream of `format` events, paced as scripted. */
export async function streamModelAnswer(res, record, answer, format) {
  const state = { format, chunks_sent: 0, completed: false, broken: false, client_closed: false };
  record.stream = state;
  let closed = false;
  res.on("close", () => {
    closed = true;
    if (!state.completed && !state.broken) state.client_closed = true;
  });
  const events = format === "anthropic" ? anthropicEvents(answer.body) : openaiEvents(record, answer.body);
  res.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache", Connection: "keep-alive", ...answer.headers });
  for (const [i, event] of events.entries()) {
    if (closed) return;
    if (i > 0 && answer.chunk_delay_ms) await sleep(answer.chunk_delay_ms);
    if (closed) return;
    if (answer.break_after_chunks !== undefined && state.chunks_sent >= answer.break_after_chunks) {
      // Everything written so far has reached the socket: the hub reads those events, then the cut.
      state.broken = true;
      res.destroy();
      return;
    }
    if (answer.error_after_chunks !== undefined && state.chunks_sent >= answer.error_after_chunks) {
      res.write(encode(errorEvent(format)));
      state.completed = true;
      res.end();
      return;
    }
    await new Promise((resolve) => res.write(encode(event), resolve));
    state.chunks_sent++;
  }
  state.completed = true;
  res.end();
}
