/**
 * `source`, ended after `ms` (or sooner, when it ends itself). A dashboard stream is opened with
 * the session checked once, so it must not outlive a sign-out for long; the page's script picks
 * up where it stopped (Last-Event-ID), checked again.
 */
export function closedAfter(source: ReadableStream<Uint8Array>, ms: number): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (closed) return;
    closed = true;
    clearTimeout(timer ?? null);
    controller.close();
    reader.cancel().catch(() => undefined);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setTimeout(() => finish(controller), ms);
    },
    async pull(controller) {
      const { value, done } = await reader.read();
      if (closed) return;
      if (done) finish(controller);
      else controller.enqueue(value);
    },
    cancel(reason) {
      closed = true;
      clearTimeout(timer ?? null);
      return reader.cancel(reason);
    },
  });
}
