import { ProviderError, type ChatProvider } from "./types";

/**
 * Every model call has a deadline (MODEL_CALL_TIMEOUT_SECONDS), whoever asks: a chat turn, an
 * `llm` step, a builder, a direct question. A server that trickles its answer a byte at a time
 * never trips a read timeout, so the deadline covers the whole exchange; past it the request is
 * aborted (the provider sees its connection closed) and the caller is answered with a
 * ProviderError naming the limit, even where the underlying call does not honour its signal.
 */
export function withDeadline(provider: ChatProvider, timeoutMs: number): ChatProvider {
  return {
    ...provider,
    async generate(request) {
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
      const expired = () => new ProviderError(`The ${provider.id} provider did not answer within ${timeoutMs / 1000} s (MODEL_CALL_TIMEOUT_SECONDS).`);
      let stop: (() => void) | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        const onAbort = () => reject(request.signal?.aborted ? request.signal.reason : expired());
        stop = () => signal.removeEventListener("abort", onAbort);
        signal.addEventListener("abort", onAbort, { once: true });
      });
      try {
        return await Promise.race([provider.generate({ ...request, signal }), timedOut]);
      } catch (error) {
        // The caller's own abort (a stop, a lost lease) is theirs to read; the deadline is ours.
        if (deadline.aborted && !request.signal?.aborted) throw expired();
        throw error;
      } finally {
        stop?.();
      }
    },
  };
}
