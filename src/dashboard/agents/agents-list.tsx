import type { presentAgent } from "../../agents/service";
import { describeSchedule, formatInstant } from "./agent-schedule";
import { AGENT_STYLE } from "./agent-schedule-form";
import { DataTable } from "../common";
import { Page } from "../layout";

export type AgentSummary = ReturnType<typeof presentAgent>;

/** The name the person gave the agent when deploying it (kept in its agent_config), or one from its workflow. */
export function agentName(agent: Pick<AgentSummary, "agent_config" | "workflow_name">): string {
  const given = agent.agent_config.name;
  return typeof given === "string" && given.trim() ? given.trim() : `Agent for ${agent.workflow_name}`;
}

export const formatWhen = (iso: string | null, none = "never") => (iso ? formatInstant(new Date(iso)) : none);

/** `/app/agents`: the person's agents with their schedule and health at a glance. */
export function AgentsListPage(props: { email: string; csrf: string; agents: AgentSummary[] }) {
  return (
    <Page title="Agents" email={props.email} csrf={props.csrf} style={AGENT_STYLE}>
      <h1>Agents</h1>
      <p>An agent runs one of your workflows on a schedule, when a signed event reaches its webhook, or when you run it.</p>
      <p>
        <a href="/app/agents/new">Deploy an agent</a>
      </p>
      {props.agents.length === 0 ? (
        <p>You have no agents yet.</p>
      ) : (
        <DataTable
          rows={props.agents}
          caption="Your agents"
          captionHidden
          columns={[
            { label: "Name", cell: (agent) => agentName(agent) },
            { label: "Workflow", cell: (agent) => <a href={`/app/workflows/${agent.workflow_id}`}>{agent.workflow_name}</a> },
            { label: "Status", cell: (agent) => agent.status },
            { label: "Schedule", cell: (agent) => describeSchedule(agent.schedule) },
            {
              label: "Success rate",
              cell: (agent) => (agent.monitoring.execution_count ? `${agent.monitoring.success_rate}% of ${agent.monitoring.execution_count}` : "no runs yet"),
            },
            { label: "Last run", cell: (agent) => formatWhen(agent.monitoring.last_run_at) },
            {
              label: "Details",
              hideLabel: true,
              cell: (agent) => (
                <a href={`/app/agents/${agent.agent_id}`} aria-label={`Open ${agentName(agent)}`}>
                  Open
                </a>
              ),
            },
          ]}
        />
      )}
    </Page>
  );
}
