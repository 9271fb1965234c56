import type { ToolEvent } from "../../tools/event-stream";

/** One event as a line of the list the page shows. */
export function describeToolEvent({ event, data }: ToolEvent): string {
  switch (event) {
    case "start":
      return `Started ${data.name} (${data.call_id}).`;
    case "progress":
      return `Progress ${data.progress}${data.total !== undefined ? ` of ${data.total}` : ""}${data.message ? `: ${data.message}` : ""}`;
    case "log":
      return `Log (${data.level}): ${data.message}`;
    case "result":
      return `Succeeded in ${data.duration_ms} ms.`;
    case "error":
      return `Failed: ${data.error_message}`;
    case "end":
      return "Finished.";
  }
}

/** A plain run's page lists the first events only (a tool may log thousands), each cut to a readable length. */
export const EVENTS_SHOWN = 200;
export const EVENT_TEXT_SHOWN = 500;

/** The events of a run as the page lists them: the first `EVENTS_SHOWN` lines, and how many more there were. */
export interface EventLines {
  lines: string[];
  more: number;
}

/** Collects a run's events into `EventLines` as they come; later events are only counted. */
export function collectEventLines(): { add: (event: ToolEvent) => void; lines: EventLines } {
  const lines: EventLines = { lines: [], more: 0 };
  const add = (event: ToolEvent) => {
    if (lines.lines.length >= EVENTS_SHOWN) {
      lines.more++;
      return;
    }
    const text = describeToolEvent(event);
    lines.lines.push(text.length > EVENT_TEXT_SHOWN ? `${text.slice(0, EVENT_TEXT_SHOWN)}…` : text);
  };
  return { add, lines };
}
