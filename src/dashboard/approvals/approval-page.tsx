import type { ApprovalView } from "../../approvals/present";
import { Fact, JsonBlock } from "../common";
import { ErrorNote, Page } from "../layout";
import { APPROVALS_STYLE, AskedBy, EffectBadge, StatusBadge, Time, approvalHref } from "./approval-parts";

/** The API's limit on a decision's note. */
export const MAX_NOTE = 2000;

/** What the decision form holds: the arguments and note as typed (kept when a decision is refused). */
export interface DecisionValues {
  arguments: string;
  note: string;
}

export interface ApprovalPageProps {
  email: string;
  csrf: string;
  approval: ApprovalView;
  values?: DecisionValues;
  /** Just decided (the redirect after a decision). */
  decided?: boolean;
  error?: string;
}

/** The arguments as the form first shows them: the call's own, indented. */
export const typedArguments = (approval: ApprovalView) => JSON.stringify(approval.arguments, null, 2);

/**
 * `/app/approvals/<id>`: the call in full and the rule that asked; while pending, the decision
 * form (Approve runs the call with the arguments as edited here, Deny tells the model so).
 */
export function ApprovalPage(props: ApprovalPageProps) {
  const { approval } = props;
  const pending = approval.status === "pending";
  return (
    <Page title={`Approval: ${approval.tool}`} email={props.email} csrf={props.csrf} style={APPROVALS_STYLE}>
      <h1>
        Approval: <code>{approval.tool}</code>
      </h1>
      <p>
        <a href="/app/approvals">Back to approvals</a>
      </p>
      {props.decided ? <DecidedNotice approval={approval} /> : null}
      <ErrorNote message={props.error} />
      <section class="card" aria-labelledby="the-call">
        <h2 id="the-call">The call</h2>
        <dl class="facts">
          <Fact term="Status">
            <StatusBadge status={approval.status} />
          </Fact>
          <Fact term="Tool">
            <a href={`/app/tools/${encodeURIComponent(approval.tool)}`}>
              <code>{approval.tool}</code>
            </a>
          </Fact>
          <Fact term="Effect">
            <EffectBadge effect={approval.effect} />
          </Fact>
          <Fact term="Asked by">
            <AskedBy approval={approval} />
          </Fact>
          <Fact term="Requested">
            <Time value={approval.requested_at} />
          </Fact>
          <Fact term={pending ? "Expires" : "Expiry"}>
            <Time value={approval.expires_at} />
          </Fact>
          {pending ? null : (
            <>
              <Fact term="Decided">
                <Time value={approval.decided_at} />
              </Fact>
              <Fact term="Decided by">{approval.decided_by ? <code>{approval.decided_by}</code> : "nobody"}</Fact>
            </>
          )}
        </dl>
        {approval.note ? <p>Note: {approval.note}</p> : null}
        <h3>{approval.status === "approved" ? "Arguments it runs with" : "Arguments"}</h3>
        <JsonBlock value={approval.arguments} />
      </section>
      <section class="card" aria-labelledby="the-rule">
        <h2 id="the-rule">The rule that asked</h2>
        <p>{ruleSource(approval.rule)}</p>
        <JsonBlock value={ruleItself(approval.rule)} />
      </section>
      {pending ? <DecisionForm approval={approval} csrf={props.csrf} values={props.values ?? { arguments: typedArguments(approval), note: "" }} /> : null}
    </Page>
  );
}

function DecisionForm(props: { approval: ApprovalView; csrf: string; values: DecisionValues }) {
  return (
    <section class="card" aria-labelledby="decide">
      <h2 id="decide">Decide</h2>
      <form method="post" action={approvalHref(props.approval.id)}>
        <input type="hidden" name="csrf_token" value={props.csrf} />
        <label for="decision-arguments">Arguments (JSON)</label>
        <p class="hint" id="decision-arguments-hint">
          Edit them to run the call with other arguments: edited arguments are checked against the tool's input schema before anything is decided. Deny ignores
          them.
        </p>
        <textarea id="decision-arguments" class="json" name="arguments" rows={10} aria-describedby="decision-arguments-hint">
          {props.values.arguments}
        </textarea>
        <label for="decision-note">
          Note <span class="required">(optional)</span>
        </label>
        <p class="hint" id="decision-note-hint">
          Kept with the decision; with Deny, the model is told it.
        </p>
        <textarea id="decision-note" class="note" name="note" rows={3} maxlength={MAX_NOTE} aria-describedby="decision-note-hint">
          {props.values.note}
        </textarea>
        <div class="actions">
          <button type="submit" name="step" value="approve">
            Approve
          </button>
          <button type="submit" name="step" value="deny" class="danger">
            Deny
          </button>
        </div>
      </form>
    </section>
  );
}

function DecidedNotice(props: { approval: ApprovalView }) {
  const { approval } = props;
  const waiting = approval.conversation_id !== undefined || approval.execution_id !== undefined;
  const next = waiting ? " What waits on it goes on once every call it waits on is decided." : "";
  const message =
    approval.status === "approved"
      ? `Approved: the call runs with the arguments below.${next}`
      : approval.status === "denied"
        ? `Denied: the call does not run, and the model is told so.${next}`
        : `This approval is ${approval.status}.`;
  return (
    <p class="notice" role="status">
      {message}
    </p>
  );
}

/** Where the rule came from (`source`, `index` as the policy check recorded them). */
function ruleSource(rule: Record<string, unknown>): string {
  const position = typeof rule.index === "number" ? `Rule ${rule.index + 1}` : "A rule";
  switch (rule.source) {
    case "agent":
      return `${position} of the agent's tool policies (agent_config.tool_policies).`;
    case "account":
      return `${position} of your account's tool policies (GET /v1/me/tool-policies).`;
    case "default":
      return "The hub's default rule: a destructive call is asked about unless a rule of the agent or the account decides otherwise.";
    default:
      return "A policy rule.";
  }
}

function ruleItself(rule: Record<string, unknown>): Record<string, unknown> {
  const { source: _source, index: _index, ...itself } = rule;
  return itself;
}
