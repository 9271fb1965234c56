import type { ChatMessage } from "../llm/types";
import { runTogether } from "./parallel";
import type { LoopCall, LoopEvents, LoopInput, LoopOutcome, ToolOutcome } from "./types";

/** Calls one model answer may make; past it the rest are dropped from the answer (never run, never replayed). */
export const MAX_CALLS_PER_ANSWER = 16;

/**
 * The agent loop: ask the model (streaming its text), run the tool calls of its answer together,
 * hand the results back in the model's order, and repeat until it answers without calling a tool,
 * is stopped, or has made `maxSteps` requests (the last one is offered no tools, so it answers).
 * It stores nothing: the driver hears everything through `events`. A provider failure is thrown
 * to the driver, except when the turn was stopped: then the text produced so far is the answer.
 */
export async function runAgentLoop(input: LoopInput, events: LoopEvents = {}): Promise<LoopOutcome> {
  const messages: ChatMessage[] = [...input.messages];
  const calls: LoopCall[] = input.calls ?? [];
  const usage = { inputTokens: 0, outputTokens: 0 };
  let model: string | null = null;
  const outcome = (status: LoopOutcome["status"], text: string, rounds: number, awaiting: string[] = []): LoopOutcome => ({
    status,
    text,
    calls,
    usage,
    model,
    rounds,
    awaiting,
  });
  const requestSignal = AbortSignal.any([input.stop, input.deadline]);

  for (let round = 1; round <= input.maxSteps; round++) {
    if (input.stop.aborted) return outcome("stopped", "", round - 1);
    const tools = round < input.maxSteps ? input.offer.next() : [];
    let produced = "";
    let answer: Awaited<ReturnType<typeof input.provider.generate>>;
    try {
      events.requestStarted?.(round);
      answer = await input.provider.generate({
        messages,
        tools,
        signal: requestSignal,
        onTextDelta: (text) => {
          produced += text;
          events.delta?.(round, text);
        },
      });
    } catch (error) {
      if (input.stop.aborted) return outcome("stopped", produced, round);
      throw error;
    }
    usage.inputTokens += answer.usage.inputTokens;
    usage.outputTokens += answer.usage.outputTokens;
    model = answer.model;
    await events.answered?.(round, answer);
    if (answer.toolCalls.length === 0) return outcome("completed", answer.text, round);

    // The last allowed request was offered no tools; calls it makes anyway would never be answered.
    if (round === input.maxSteps) return outcome("max_steps", MAX_STEPS_TEXT(input.maxSteps), round);
    // Calls past the bound are dropped from the answer as replayed, so every call kept has a result.
    const requested = answer.toolCalls.slice(0, MAX_CALLS_PER_ANSWER);
    input.offer.note(requested.map((call) => call.name));
    messages.push({ role: "assistant", content: answer.text, toolCalls: requested });
    // Ended calls wait here until every earlier call of the answer has ended, then go on in order.
    const ended: ({ record: LoopCall; result: ToolOutcome } | undefined)[] = new Array(requested.length);
    let released = 0;
    let releasing = Promise.resolve();
    const finish = async (index: number, result: ToolOutcome): Promise<ToolOutcome> => {
      const call = requested[index]!;
      const record: LoopCall = {
        ...call,
        round,
        success: result.success,
        error_message: result.error_message,
        duration_ms: result.duration_ms,
        call_id: result.call_id,
        ...(result.awaiting_approval ? { approval_id: result.awaiting_approval } : {}),
      };
      // A call held for approval has not ended: it is only recorded, in order, as waiting.
      if (!result.awaiting_approval) events.toolEnded?.(record, result);
      ended[index] = { record, result };
      releasing = releasing.then(async () => {
        for (let next = ended[released]; next; next = ended[released]) {
          released++;
          calls.push(next.record);
          await events.toolFinished?.(next.record, next.result);
        }
      });
      // A failed release fails this call's worker (the round ends); later releases are not chained to it.
      const mine = releasing;
      releasing = releasing.catch(() => undefined);
      await mine;
      return result;
    };
    const results = await runTogether(
      requested,
      input.maxParallel,
      input.stop,
      async (call, index) => {
        events.toolStarted?.({ tool_call_id: call.id, name: call.name, arguments: call.arguments });
        // A tool that does not honour its signal must not hold the turn past its deadline.
        const result = await Promise.race([
          input.run(call, {
            signal: input.deadline,
            onProgress: (progress) => events.toolProgress?.({ tool_call_id: call.id, name: call.name, progress }),
          }),
          whenAborted(input.deadline, () => refusal("The tool did not finish before the turn's deadline.")),
        ]);
        return finish(index, result);
      },
      // Recorded like any outcome, so the history keeps a result for every call the model made.
      (_, index) => finish(index, refusal("Not run: the turn was stopped before this call started.")),
    );
    if (input.stop.aborted) return outcome("stopped", answer.text, round);
    // The others of the round have run; the turn waits for a person before the model hears any.
    const awaiting = results.flatMap((result) => (result.awaiting_approval ? [result.awaiting_approval] : []));
    if (awaiting.length > 0) return outcome("awaiting_approval", answer.text, round, awaiting);
    for (const [index, call] of requested.entries())
      messages.push({ role: "tool", toolCallId: call.id, toolName: call.name, content: results[index]!.content });
  }
  return outcome("max_steps", MAX_STEPS_TEXT(input.maxSteps), input.maxSteps);
}

const MAX_STEPS_TEXT = (steps: number) => `Stopped after ${steps} model requests without a final answer (agent_config.max_steps).`;

/** Settles with `value()` once `signal` is aborted (never, if it is not). */
function whenAborted<T>(signal: AbortSignal, value: () => T): Promise<T> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(value());
    else signal.addEventListener("abort", () => resolve(value()), { once: true });
  });
}

export function refusal(reason: string): ToolOutcome {
  return { content: `Error: ${reason}`, success: false, error_message: reason, duration_ms: 0, call_id: null };
}
