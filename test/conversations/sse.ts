/** One server-sent event as a client reads it. */
export interface SseEvent {
  id: number | null;
  event: string;
  data: any;
}

/** Parses SSE text into events (comments skipped; `data` as JSON). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split("\n\n")) {
    const lines = block.split("\n").filter((line) => line && !line.startsWith(":"));
    if (!lines.some((line) => line.startsWith("event:") || line.startsWith("data:"))) continue;
    const field = (name: string) =>
      lines
        .filter((line) => line.startsWith(`${name}:`))
        .map((line) => line.slice(name.length + 1).trimStart())
        .join("\n");
    const id = field("id");
    events.push({ id: id ? Number(id) : null, event: field("event") || "message", data: JSON.parse(field("data") || "null") });
  }
  return events;
}

/** Reads a stream until it ends, or until `until` holds for the events so far (then cancels it). */
export async function readSse(response: Response, until?: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    // Only whole events count: the text up to the last blank line.
    if (until?.(parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2)))) {
      await reader.cancel();
      break;
    }
  }
  return parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2));
}

/** The text of the turn's last round, as its `delta` events carry it (joined, the stored answer). */
export function lastRoundText(events: SseEvent[]): string {
  const deltas = events.filter((e) => e.event === "delta");
  const lastRound = Math.max(...deltas.map((e) => e.data.round));
  return deltas
    .filter((e) => e.data.round === lastRound)
    .map((e) => e.data.text)
    .join("");
}
