import type { listAgentEvents } from "../../agents/events";
import { DataTable } from "../common";
import { Page } from "../layout";
import { formatInstant } from "./agent-schedule";
import { AGENT_STYLE } from "./agent-schedule-form";

/** One event as GET /v1/agents/{id}/events presents it. */
export type AgentEventView = Awaited<ReturnType<typeof listAgentEvents>>["data"][number];

/** Outcomes in words, so the table reads without knowing the API's codes. */
const OUTCOMES: Record<AgentEventView["outcome"], string> = {
  started: "Started a run",
  duplicate: "Duplicate (seen before)",
  ignored: "Ignored",
  rejected: "Rejected",
  error: "Error",
  skipped: "Skipped (rate limit)",
};

/** The agent's events, newest first: what arrived, what became of it, and the run it started. */
export function EventsTable(props: { events: AgentEventView[] }) {
  return (
    <DataTable
      rows={props.events}
      caption="Events, newest first"
      captionHidden
      columns={[
        {
          label: "Received",
          cell: (event) => <time datetime={event.received_at}>{formatInstant(new Date(event.received_at))}</time>,
        },
        { label: "Source", cell: (event) => event.source },
        { label: "Outcome", cell: (event) => <span class={`outcome outcome-${event.outcome}`}>{OUTCOMES[event.outcome]}</span> },
        { label: "Type", cell: (event) => event.event_type ?? "—" },
        { label: "Event id", className: "wrap", cell: (event) => (event.event_id ? <code>{event.event_id}</code> : "—") },
        {
          label: "Run",
          cell: (event) =>
            event.execution_id ? (
              <a href={`/app/executions/${encodeURIComponent(event.execution_id)}`}>
                <code>{event.execution_id}</code>
              </a>
            ) : (
              "none"
            ),
        },
        { label: "Detail", className: "wrap", cell: (event) => event.detail ?? "" },
      ]}
    />
  );
}

/** `/app/agents/<id>/events`: one page of the events log, with a link to the next (older) page. */
export function AgentEventsPage(props: {
  email: string;
  csrf: string;
  agentId: string;
  name: string;
  events: AgentEventView[];
  nextCursor: string | null;
  paged: boolean;
}) {
  const base = `/app/agents/${props.agentId}`;
  return (
    <Page title={`Events of ${props.name}`} email={props.email} csrf={props.csrf} style={AGENT_STYLE}>
      <h1>Events of {props.name}</h1>
      <p>
        <a href={base}>Back to the agent</a>
      </p>
      <p>
        Each webhook delivery, poll, scheduled run and run by hand, newest first, kept 7 days. A rejected delivery says why (never the secret it was checked
        with).
      </p>
      {props.events.length === 0 ? (
        <p id="no-events">{props.paged ? "No older events." : "No events yet: nothing has reached this agent in the last 7 days."}</p>
      ) : (
        <EventsTable events={props.events} />
      )}
      {props.paged || props.nextCursor ? (
        <nav class="pager" aria-label="Events pages">
          {props.paged ? <a href={`${base}/events`}>Newest events</a> : null}{" "}
          {props.nextCursor ? <a href={`${base}/events?cursor=${encodeURIComponent(props.nextCursor)}`}>Older events</a> : null}
        </nav>
      ) : null}
    </Page>
  );
}
