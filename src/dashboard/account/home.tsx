import { countOf } from "../common";
import { ErrorNote, Page } from "../layout";

/** `/` for someone not signed in: what the hub is, then sign in or register. */
export function SignInPage(props: { csrf: string; error?: string; email?: string; registrationOpen: boolean }) {
  return (
    <Page title="Sign in">
      <h1>Agent Automation Hub</h1>
      <p>
        Build autonomous AI agents and marketing automations: connect platforms, talk to an agent that calls tools, turn what worked into a workflow, and deploy
        it on a schedule or on events.
      </p>
      <ErrorNote message={props.error} />
      <div class="columns">
        <section class="card" aria-labelledby="sign-in">
          <h2 id="sign-in">Sign in</h2>
          <form method="post" action="/">
            <input type="hidden" name="csrf_token" value={props.csrf} />
            <label for="sign-in-email">Email</label>
            <input id="sign-in-email" type="email" name="email" autocomplete="username" required value={props.email ?? ""} />
            <label for="sign-in-password">Password</label>
            <input id="sign-in-password" type="password" name="password" autocomplete="current-password" required />
            <button type="submit" name="step" value="sign_in">
              Sign in
            </button>
          </form>
        </section>
        {props.registrationOpen ? (
          <section class="card" aria-labelledby="register">
            <h2 id="register">Create an account</h2>
            <form method="post" action="/">
              <input type="hidden" name="csrf_token" value={props.csrf} />
              <label for="register-name">Name (optional)</label>
              <input id="register-name" type="text" name="name" autocomplete="name" maxlength={100} />
              <label for="register-email">Email</label>
              <input id="register-email" type="email" name="email" autocomplete="username" required />
              <label for="register-password">Password (at least 8 characters)</label>
              <input id="register-password" type="password" name="password" autocomplete="new-password" minlength={8} required />
              <button type="submit" name="step" value="register">
                Create account
              </button>
            </form>
          </section>
        ) : null}
      </div>
      <p>
        Developers: the <a href="/docs">API reference</a> and the <a href="/v1/openapi.json">OpenAPI 3.1 document</a>.
      </p>
    </Page>
  );
}

export interface OverviewCounts {
  connections: number;
  workflows: number;
  agents: number;
  keys: number;
}

/** `/` for someone signed in: the way through the hub for a newcomer, and what they have. Counts past `cap` show as "100+". */
export function OverviewPage(props: { email: string; csrf: string; counts: OverviewCounts; cap: number }) {
  const { counts } = props;
  const plural = (n: number, one: string) => `${countOf(n, props.cap)} ${one}${n === 1 ? "" : "s"}`;
  return (
    <Page title="Overview" email={props.email} csrf={props.csrf}>
      <h1>Welcome, {props.email}</h1>
      <section class="card" aria-labelledby="getting-started">
        <h2 id="getting-started">Getting started</h2>
        <ol>
          <li>
            <a href="/app/connections">Connect a platform</a>: Slack, email, a CRM or any MCP server.
          </li>
          <li>
            <a href="/app/tools">Try a tool</a> with a form, and see its result.
          </li>
          <li>
            <a href="/app/conversations">Chat with the agent</a>: it calls tools for you.
          </li>
          <li>
            Turn a chat into a <a href="/app/workflows">workflow</a>, or start from a <a href="/app/templates">template</a>.
          </li>
          <li>
            <a href="/app/agents">Deploy it as an agent</a> that runs on a schedule or on events.
          </li>
        </ol>
      </section>
      <div class="columns">
        <section class="card">
          <h2>Connections</h2>
          <p>{counts.connections === 0 ? "None yet." : plural(counts.connections, "connection")}</p>
          <a href="/app/connections">Manage connections</a>
        </section>
        <section class="card">
          <h2>Workflows</h2>
          <p>{counts.workflows === 0 ? "None yet." : plural(counts.workflows, "workflow")}</p>
          <a href="/app/workflows">Open workflows</a>
        </section>
        <section class="card">
          <h2>Agents</h2>
          <p>{counts.agents === 0 ? "None deployed." : plural(counts.agents, "agent")}</p>
          <a href="/app/agents">Open agents</a>
        </section>
        <section class="card">
          <h2>API keys</h2>
          <p>{counts.keys === 0 ? "No active key yet." : `${plural(counts.keys, "active key")}.`} Keys let scripts and MCP clients act for you.</p>
          <a href="/app/keys">Manage API keys</a>
        </section>
      </div>
      <p>
        Everything here is in the <a href="/docs">API reference</a> too; MCP clients connect to <code>/mcp</code>.
      </p>
    </Page>
  );
}
