import { CONNECTIONS_STYLE } from "./connections-new";
import { ErrorNote, Page } from "../layout";

/** The callback's answer when there is no return page: it worked, or why not. */
export function AuthorizationOutcomePage(props: { email?: string; csrf?: string; title: string; message: string; ok: boolean; back: string }) {
  return (
    <Page title={props.title} email={props.email} csrf={props.csrf} style={CONNECTIONS_STYLE}>
      <h1>{props.title}</h1>
      {props.ok ? (
        <p class="notice" role="status">
          {props.message}
        </p>
      ) : (
        <ErrorNote message={props.message} />
      )}
      <p>
        <a href={props.back}>Back to connections</a>
      </p>
    </Page>
  );
}

/** The callback reached by a browser nobody is signed in on: the authorization waits (nothing was used). */
export function SignInToFinishPage() {
  return (
    <Page title="Sign in to finish connecting" style={CONNECTIONS_STYLE}>
      <h1>Sign in to finish connecting</h1>
      <p>
        The authorization is bound to the person who started it. Sign in to the hub in this browser as that person, then reload this page: the authorization has
        not been used and stays valid for 10 minutes from when it started.
      </p>
      <p>
        <a href="/" target="_blank" rel="noopener">
          Sign in (opens a new tab)
        </a>
      </p>
    </Page>
  );
}
