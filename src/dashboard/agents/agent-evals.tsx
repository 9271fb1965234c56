import type { EvalView } from "../../evals/service";
import { JsonBlock } from "../common";
import { ErrorNote, Page } from "../layout";

export const EVAL_EXAMPLE = JSON.stringify(
  {
    cases: [
      {
        name: "finds the contact",
        input: "Where does ada@example.com work?",
        mocks: { hubspot_find_contact: { results: [{ company: "Analytical Engines" }] } },
        expect: { tools_called: ["hubspot_find_contact"], output_contains: "Analytical Engines" },
      },
    ],
  },
  null,
  2,
);

const STYLE = `.case{border:1px solid #ccc;border-radius:6px;padding:.5rem 1rem;margin:.75rem 0}.passed h3{color:#17663a}.failed h3{color:#a4161a}textarea{width:100%;font-family:monospace}`;

/** `/app/agents/{id}/evals`: cases to run against the agent with mocked tools, and the verdicts of the last run. */
export function AgentEvalsPage(props: { email: string; csrf: string; agentId: string; agentName: string; cases: string; error?: string; result?: EvalView }) {
  const back = `/app/agents/${encodeURIComponent(props.agentId)}`;
  return (
    <Page title={`Evals of ${props.agentName}`} email={props.email} csrf={props.csrf} style={STYLE}>
      <h1>Evals of {props.agentName}</h1>
      <p>
        <a href={back}>Back to the agent</a> · Each case runs with the agent's model, instructions, tools and policies; every tool call is answered from the
        case's <code>mocks</code>, so nothing outside is called.
      </p>
      <ErrorNote message={props.error} />
      <form method="post">
        <input type="hidden" name="csrf_token" value={props.csrf} />
        <label for="cases">Cases (JSON, at most 50)</label>
        <textarea id="cases" name="cases" rows={16}>
          {props.cases}
        </textarea>
        <button type="submit">Run the eval</button>
      </form>
      {props.result ? <EvalResult result={props.result} /> : null}
    </Page>
  );
}

function EvalResult(props: { result: EvalView }) {
  const { result } = props;
  return (
    <section aria-label="Verdicts">
      <h2>
        {result.passed} passed, {result.failed} failed
      </h2>
      <p class="meta">
        Eval <code>{result.id}</code> (GET /v1/agents/{result.agent_id}/evals/{result.id} reads it again)
      </p>
      {result.cases.map((testCase) => (
        <div class={`case ${testCase.verdict}`}>
          <h3>
            {testCase.name}: {testCase.verdict}
          </h3>
          {testCase.failures.length ? (
            <ul>
              {testCase.failures.map((failure) => (
                <li>{failure}</li>
              ))}
            </ul>
          ) : null}
          <p>Tools called: {testCase.trajectory.map((call) => call.tool).join(" → ") || "none"}</p>
          <JsonBlock label="Output" text={testCase.output} />
        </div>
      ))}
    </section>
  );
}
