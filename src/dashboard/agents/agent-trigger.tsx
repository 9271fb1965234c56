import { Fact } from "../common";
import type { AgentView } from "./agent-page";
import { describeSchedule } from "./agent-schedule";
import type { PollSettings, TriggerDetails } from "./agent-trigger-details";
import { WebhookTrigger } from "./agent-webhook";
import { formatWhen } from "./agents-list";

export interface TriggerPanelProps {
  agent: AgentView;
  details: TriggerDetails;
  action: string;
  csrf: string;
  /** The hub-signed address every agent keeps (presentAgent gives `webhook_url` for webhook triggers only). */
  webhookUrl: string;
  secretSaved?: boolean;
  secretError?: string;
}

/**
 * What starts the agent, as its workflow's trigger armed it (DESIGN §5 "Triggers"): a schedule,
 * a webhook (with how to connect the sender), a poll, or only the person and hub-signed events.
 */
export function TriggerPanel(props: TriggerPanelProps) {
  const { trigger } = props.agent;
  return (
    <section class="card" aria-labelledby="agent-trigger">
      <h2 id="agent-trigger">Trigger: {trigger.type}</h2>
      {trigger.type === "webhook" ? (
        <WebhookTrigger
          action={props.action}
          csrf={props.csrf}
          webhookUrl={trigger.webhook_url ?? props.webhookUrl}
          verify={trigger.verify ?? "hub"}
          eventTypes={trigger.event_types}
          lastEventAt={trigger.last_event_at}
          signingSecretSet={props.details.signingSecretSet}
          secretSaved={props.secretSaved}
          secretError={props.secretError}
        />
      ) : trigger.type === "poll" ? (
        <PollTrigger settings={props.details.poll} nextPollAt={trigger.next_poll_at ?? null} lastEventAt={trigger.last_event_at} />
      ) : (
        <>
          {trigger.type === "schedule" ? (
            <dl class="facts" id="schedule-facts">
              <Fact term="Schedule">{describeSchedule(props.agent.schedule)}</Fact>
              <Fact term="Next run">{formatWhen(props.agent.monitoring.next_run_at, "not scheduled")}</Fact>
            </dl>
          ) : (
            <p>Runs when you run it, and on events signed with its webhook secret.</p>
          )}
          <HubSignedEvents webhookUrl={props.webhookUrl} />
        </>
      )}
      <p>
        <a href={`${props.action}/events`}>Events log</a>: every delivery, poll and run, with why one was refused.
      </p>
    </section>
  );
}

/** Agents that are not webhook-triggered still take hub-signed events (§3's scheme). */
function HubSignedEvents(props: { webhookUrl: string }) {
  return (
    <p>
      Events: <code>POST {props.webhookUrl}</code> signed with the webhook secret (headers <code>X-Hub-Timestamp</code> and{" "}
      <code>X-Hub-Signature: sha256=&lt;HMAC of "timestamp.body"&gt;</code>).
    </p>
  );
}

/** A poll trigger: which tool is called how often, where the items and their keys are read, and what each new one starts. */
function PollTrigger(props: { settings?: PollSettings; nextPollAt: string | null; lastEventAt: string | null }) {
  const settings = props.settings;
  return (
    <>
      <p>Calls a tool on an interval and starts a run for each item it has not seen before.</p>
      <dl class="facts" id="poll-facts">
        <Fact term="Tool">{settings?.tool ? <code>{settings.tool}</code> : "—"}</Fact>
        <Fact term="Interval">{settings?.intervalSeconds ? describeSchedule({ type: "interval", interval_seconds: settings.intervalSeconds }) : "—"}</Fact>
        <Fact term="Items at">{settings?.itemsPath ? <code>{settings.itemsPath}</code> : "the whole result"}</Fact>
        <Fact term="Item key at">{settings?.idPath ? <code>{settings.idPath}</code> : "—"}</Fact>
        <Fact term="Runs">{settings?.emit === "batch" ? "one run per poll with all new items" : "one run per new item"}</Fact>
        <Fact term="Items there at the first poll">{settings?.emitExisting ? "start runs" : "are remembered, start nothing"}</Fact>
        <Fact term="Next poll">{formatWhen(props.nextPollAt, "none: not polling now")}</Fact>
        <Fact term="Last event">{formatWhen(props.lastEventAt)}</Fact>
      </dl>
    </>
  );
}
