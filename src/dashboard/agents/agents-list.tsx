import type { presentAgent } from "../../agents/service";
import { describeSchedule, formatInstant } from "./agent-schedule";
import { AGENT_STYLE } from "./agent-schedule-form";
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
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Your agents</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Workflow</th>
                <th scope="col">Status</th>
                <th scope="col">Schedule</th>
                <th scope="col">Success rate</th>
                <th scope="col">Last run</th>
                <th scope="col">
                  <span class="visually-hidden">Details</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {props.agents.map((agent) => {
                const name = agentName(agent);
                return (
                  <tr>
                    <td data-label="Name">{name}</td>
                    <td data-label="Workflow">
                      <a href={`/app/workflows/${agent.workflow_id}`}>{agent.workflow_name}</a>
                    </td>
                    <td data-label="Status">{agent.status}</td>
                    <td data-label="Schedule">{describeSchedule(agent.schedule)}</td>
                    <td data-label="Success rate">
                      {agent.monitoring.execution_count ? `${agent.monitoring.success_rate}% of ${agent.monitoring.execution_count}` : "no runs yet"}
                    </td>
                    <td data-label="Last run">{formatWhen(agent.monitoring.last_run_at)}</td>
                    <td>
                      <a href={`/app/agents/${agent.agent_id}`} aria-label={`Open ${name}`}>
                        Open
                      </a>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}
