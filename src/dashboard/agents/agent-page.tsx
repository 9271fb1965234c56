import type { presentOwnedAgent } from "../../agents/service";
import { type AgentEventView, EventsTable } from "./agent-events";
import { AgentHealth } from "./agent-health";
import type { RunRow } from "./agent-runs";
import { type ScheduleFields, describeSchedule } from "./agent-schedule";
import { AGENT_STYLE, RunTimes, ScheduleFieldset, type SchedulePreview } from "./agent-schedule-form";
import { TriggerPanel } from "./agent-trigger";
import type { TriggerDetails } from "./agent-trigger-details";
import { agentName } from "./agents-list";
import { ErrorNote, Page } from "../layout";

export type AgentView = Awaited<ReturnType<typeof presentOwnedAgent>>;

export interface AgentPageProps {
  email: string;
  csrf: string;
  agent: AgentView;
  runs: RunRow[];
  /** What the trigger panel shows beyond `agent.trigger`. */
  trigger: TriggerDetails;
  /** The newest few events; the events log has the rest. */
  events: AgentEventView[];
  /** The schedule's next run times, in `scheduleZone`. */
  upcoming: Date[];
  scheduleZone: string;
  scheduleFields: ScheduleFields;
  minInterval: number;
  webhookUrl: string;
  preview?: SchedulePreview;
  error?: string;
  /** Right after deploying only: the webhook secret, which is never shown again. */
  webhookSecret?: string;
  /** The deploy's flash came back after its secret was shown: say so instead of showing it. */
  webhookSecretShown?: boolean;
  /** An execution of this agent the person just started with "Run now" (checked as theirs). */
  started?: string;
  /** The run input of a refused "Run now", given back as typed. */
  runInput?: string;
  /** "Set signing secret" just succeeded (and a secret is set). */
  secretSaved?: boolean;
  /** Why the signing secret typed was refused (the secret itself is never shown back). */
  secretError?: string;
}

/** `/app/agents/<id>`: the agent's status and controls, its trigger, its schedule, its latest events, and its health. */
export function AgentPage(props: AgentPageProps) {
  const { agent, csrf } = props;
  const name = agentName(agent);
  const action = `/app/agents/${agent.agent_id}`;
  return (
    <Page title={name} email={props.email} csrf={csrf} style={AGENT_STYLE}>
      <h1>{name}</h1>
      <p>
        <a href="/app/agents">Back to agents</a> · runs the workflow <a href={`/app/workflows/${agent.workflow_id}`}>{agent.workflow_name}</a> ·{" "}
        <a href={`/app/agents/${agent.agent_id}/evals`}>Run an eval</a>
      </p>
      {props.webhookSecret ? (
        <div class="notice" role="status">
          <p>
            <strong>{name}</strong> was deployed. Here is its webhook secret: copy it now, it is shown only once.
          </p>
          <p>
            Webhook secret: <code id="new-webhook-secret">{props.webhookSecret}</code>
          </p>
        </div>
      ) : props.webhookSecretShown ? (
        <p class="notice" role="status">
          This agent's webhook secret was already shown once and is not shown again. If you did not copy it, delete the agent and deploy it again for a new one.
        </p>
      ) : null}
      {props.started ? (
        <p class="notice" role="status">
          Run started: <a href={`/app/executions/${encodeURIComponent(props.started)}`}>follow execution {props.started}</a>. The health below counts it once it
          finishes.
        </p>
      ) : null}
      <ErrorNote message={props.error} />
      <section class="card" aria-labelledby="agent-status">
        <h2 id="agent-status">Status: {agent.status}</h2>
        <p>
          {agent.status === "active"
            ? "Active: it runs on its schedule, on signed events and when you run it."
            : "Paused: no scheduled or event runs, and it cannot be run by hand until resumed."}
        </p>
        <div class="actions">
          <form method="post" action={action}>
            <input type="hidden" name="csrf_token" value={csrf} />
            {agent.status === "active" ? (
              <button class="secondary" type="submit" name="step" value="pause">
                Pause
              </button>
            ) : (
              <button type="submit" name="step" value="resume">
                Resume
              </button>
            )}
          </form>
          <form method="post" action={action}>
            <input type="hidden" name="csrf_token" value={csrf} />
            <button class="danger" type="submit" name="step" value="delete" aria-label={`Delete ${name}`}>
              Delete
            </button>
          </form>
        </div>
        <RunNowForm action={action} csrf={csrf} paused={agent.status === "paused"} runInput={props.runInput} />
      </section>
      <TriggerPanel
        agent={agent}
        details={props.trigger}
        action={action}
        csrf={csrf}
        webhookUrl={props.webhookUrl}
        secretSaved={props.secretSaved}
        secretError={props.secretError}
      />
      <section class="card" aria-labelledby="agent-schedule">
        <h2 id="agent-schedule">Schedule</h2>
        <p>{describeSchedule(agent.schedule)}</p>
        {props.upcoming.length ? (
          <>
            <h3>Next runs</h3>
            <RunTimes runs={props.upcoming} timeZone={props.scheduleZone} />
          </>
        ) : null}
        <form method="post" action={action}>
          <input type="hidden" name="csrf_token" value={csrf} />
          <ScheduleFieldset fields={props.scheduleFields} minInterval={props.minInterval} preview={props.preview} headingLevel={3} />
          <div class="actions">
            <button class="secondary" type="submit" name="step" value="preview">
              Preview schedule
            </button>
            <button type="submit" name="step" value="schedule">
              Update schedule
            </button>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="agent-events">
        <h2 id="agent-events">Latest events</h2>
        {props.events.length ? <EventsTable events={props.events} /> : <p>No events yet.</p>}
        <p>
          <a href={`${action}/events`}>All events</a>
        </p>
      </section>
      <AgentHealth agent={agent} runs={props.runs} />
    </Page>
  );
}

/**
 * "Run now", with an optional JSON input. A paused agent cannot be run by hand, so there the
 * button is disabled and says why; the input stays readable (not disabled) so a refused one can
 * still be copied.
 */
function RunNowForm(props: { action: string; csrf: string; paused: boolean; runInput?: string }) {
  return (
    <form method="post" action={props.action}>
      <input type="hidden" name="csrf_token" value={props.csrf} />
      <label for="run-input">Run input (JSON object, optional)</label>
      <textarea id="run-input" class="input-json" name="input" rows={3} placeholder='{"email": "ada@example.com"}' readonly={props.paused}>
        {props.runInput ?? ""}
      </textarea>
      {props.paused ? (
        <>
          <p id="run-paused" class="hint">
            Resume the agent to run it by hand.
          </p>
          <button type="submit" name="step" value="run" disabled aria-describedby="run-paused">
            Run now
          </button>
        </>
      ) : (
        <button type="submit" name="step" value="run">
          Run now
        </button>
      )}
    </form>
  );
}
