import { ErrorNote, Page } from "./layout";

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

/** `/` for someone signed in: where each part of the hub is. */
export function OverviewPage(props: { email: string; csrf: string; keys: number }) {
  return (
    <Page title="Overview" email={props.email} csrf={props.csrf}>
      <h1>Welcome, {props.email}</h1>
      <div class="columns">
        <section class="card">
          <h2>API keys</h2>
          <p>
            {props.keys === 0 ? "No active key yet." : `${props.keys} active key${props.keys === 1 ? "" : "s"}.`} Keys let scripts and MCP clients act for you.
          </p>
          <a href="/app/keys">Manage API keys</a>
        </section>
        <section class="card">
          <h2>Use the API</h2>
          <p>
            Everything the hub does is in the <a href="/docs">API reference</a>; MCP clients connect to <code>/mcp</code>.
          </p>
        </section>
      </div>
    </Page>
  );
}
