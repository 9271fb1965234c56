import type { ToolCallRequest } from "../llm/types";

/**
 * Runs the calls of one model answer together, at most `limit` at once, and answers their
 * outcomes in the model's order whatever order they end in. One call's failure leaves the others
 * alone (`run` turns failures into outcomes). Once `stop` is aborted no further call starts;
 * those are answered by `notStarted` instead, and the calls already running finish.
 */
export async function runTogether<T>(
  calls: ToolCallRequest[],
  limit: number,
  stop: AbortSignal,
  run: (call: ToolCallRequest, index: number) => Promise<T>,
  notStarted: (call: ToolCallRequest, index: number) => Promise<T>,
): Promise<T[]> {
  const outcomes = new Array<T>(calls.length);
  let next = 0;
  // A failure of the driver's own (storage refused a result) ends the round: no further call
  // starts after the round has failed, and the calls already running are not waited for.
  let failed = false;
  async function worker(): Promise<void> {
    while (next < calls.length && !failed) {
      const index = next++;
      const call = calls[index]!;
      try {
        outcomes[index] = await (stop.aborted ? notStarted(call, index) : run(call, index));
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, calls.length)) }, worker));
  return outcomes;
}
