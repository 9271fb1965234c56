import { HtmlDocument } from "../../http/html-document";
import type { Child } from "hono/jsx";
import { SCOPES, type Scope } from "../../core/scopes";

const styles = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f4f5f7; color: #1d2330; }
  main { width: min(420px, 92vw); background: #fff; border-radius: 12px; padding: 28px 32px; box-shadow: 0 4px 24px #0002; }
  h1 { font-size: 1.3rem; margin: 0 0 6px; }
  p.lead { margin: 0 0 20px; color: #555; }
  label { display: block; font-weight: 600; margin: 14px 0 6px; }
  input[type=email], input[type=password] { width: 100%; box-sizing: border-box; padding: 10px; border: 1px solid #bbb; border-radius: 6px; font-size: 1rem; }
  button { font-size: 1rem; padding: 10px 18px; border-radius: 6px; border: 1px solid #2456d3; cursor: pointer; }
  button.primary { background: #2456d3; color: #fff; }
  button.secondary { background: #fff; color: #2456d3; }
  .actions { display: flex; gap: 10px; margin-top: 22px; }
  ul.scopes { padding-left: 18px; } ul.scopes li { margin: 8px 0; } code { font-size: .85rem; }
  .error { background: #fdecea; color: #8a1c12; padding: 10px 12px; border-radius: 6px; }
  .muted { color: #666; font-size: .9rem; }
  .warning { border-left: 4px solid #b35c00; padding: .5rem .75rem; background: #fff4e5; color: #5c2e00; }
  @media (prefers-color-scheme: dark) { body { background: #14161b; color: #e7e9ee; } main { background: #1e2128; } p.lead, .muted { color: #aab; } }
`;

function Layout(props: { title: string; children: Child }) {
  return (
    <HtmlDocument>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="referrer" content="same-origin" />
          <title>{props.title} · Agent Automation Hub</title>
          <style>{styles}</style>
        </head>
        <body>
          <main>{props.children}</main>
        </body>
      </html>
    </HtmlDocument>
  );
}

export function SignInPage(props: { appName: string; action: string; csrf: string; email?: string; error?: string }) {
  return (
    <Layout title="Sign in">
      <h1>Sign in</h1>
      <p class="lead">
        <strong>{props.appName}</strong> wants to connect to your Agent Automation Hub account.
      </p>
      {props.error ? (
        <p class="error" role="alert">
          {props.error}
        </p>
      ) : null}
      <form method="post" action={props.action}>
        <input type="hidden" name="csrf_token" value={props.csrf} />
        <input type="hidden" name="step" value="sign_in" />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value={props.email ?? ""} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <div class="actions">
          <button class="primary" type="submit">
            Sign in
          </button>
        </div>
      </form>
    </Layout>
  );
}

export function ConsentPage(props: {
  appName: string;
  userEmail: string;
  scopes: Scope[];
  action: string;
  csrf: string;
  redirectHost: string;
  /** RFC 8707: the server the tokens will be good for. */
  resource: string;
  /** The resource is another server, not this hub. */
  foreignResource: boolean;
  selfRegistered: boolean;
}) {
  return (
    <Layout title={`Authorize ${props.appName}`}>
      <h1>Authorize {props.appName}</h1>
      <p class="lead">
        <strong>{props.appName}</strong> asks for access to your account <strong>{props.userEmail}</strong>. It will be able to:
      </p>
      <ul class="scopes">
        {props.scopes.map((scope) => (
          <li>
            {SCOPES[scope]} <code>{scope}</code>
          </li>
        ))}
      </ul>
      <p>
        Tokens it gets are good for <strong class="resource">{props.resource}</strong> only.
      </p>
      {props.foreignResource && <p class="warning">That is another server, not this hub. Approve only if you expected to connect it.</p>}
      {props.selfRegistered && (
        <p class="warning">
          This application registered itself (as MCP clients do): its name is its own claim, not checked by the hub. Approve only if you are connecting it
          yourself right now.
        </p>
      )}
      <p class="muted">
        You will be sent back to {props.redirectHost}. You can revoke access at any time: <code>GET /v1/auth/authorizations</code> lists the apps you approved
        and <code>DELETE /v1/auth/authorizations/{"{client_id}"}</code> withdraws one.
      </p>
      <form method="post" action={props.action}>
        <input type="hidden" name="csrf_token" value={props.csrf} />
        <div class="actions">
          <button class="primary" type="submit" name="step" value="approve">
            Approve
          </button>
          <button class="secondary" type="submit" name="step" value="deny">
            Deny
          </button>
          <button class="secondary" type="submit" name="step" value="sign_out">
            Not you?
          </button>
        </div>
      </form>
    </Layout>
  );
}

export function ErrorPage(props: { message: string }) {
  return (
    <Layout title="Authorization error">
      <h1>This authorization request cannot be completed</h1>
      <p class="error" role="alert">
        {props.message}
      </p>
      <p class="muted">Contact the developer of the application that sent you here.</p>
    </Layout>
  );
}
