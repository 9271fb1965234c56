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
