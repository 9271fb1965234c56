import { FIELDS_STYLE } from "../forms/fields";
import { ErrorNote, Page } from "../layout";
import { type DeployPlan, MAX_VARIABLE_CHARS, type VariableSpec, connectionInput, variableInput } from "./template-deploy-values";

/** One of the person's connections, as a choice for a platform. */
export interface ConnectionChoice {
  id: number;
  name: string;
  status: string;
}

/** "Use" copies the template into a workflow; "Use and deploy" also deploys it as an agent. */
export type TemplateFormMode = "use" | "deploy";

export interface UseAndDeployProps {
  mode: TemplateFormMode;
  email: string;
  csrf: string;
  template: { id: string; name: string; description: string; triggerType: string };
  plan: DeployPlan;
  /** The person's connections by platform id (newest first), with each platform's display name. */
  choices: Record<string, { label: string; connections: ConnectionChoice[] }>;
  name: string;
  /** As posted (connection ids, variables as typed); empty on the first showing. */
  values: Record<string, string>;
  /** By form control name. */
  errors: Record<string, string>;
  error?: string;
}

const TRIGGERS: Record<string, string> = {
  manual: "It runs when you run it (or on events signed with its webhook secret).",
  schedule: "Its schedule is armed at once.",
  webhook: "Its webhook is ready at once; the agent's page says how to connect the sender.",
  poll: "It starts polling at once.",
};

/**
 * `/app/templates/<id>/use` and `/app/templates/<id>/deploy`: copy a template (and deploy it as
 * an agent) in one go, choosing the connection each platform's steps use and the variables'
 * values. "Use" lands on the new workflow; "Use and deploy" on the new agent's page, which shows
 * its webhook secret once.
 */
export function UseAndDeployPage(props: UseAndDeployProps) {
  const { template, plan, mode } = props;
  const action = `/app/templates/${encodeURIComponent(template.id)}/${mode}`;
  const verb = mode === "deploy" ? "Use and deploy" : "Use";
  return (
    <Page title={`${verb} ${template.name}`} email={props.email} csrf={props.csrf} style={FIELDS_STYLE}>
      <h1>
        {verb}: {template.name}
      </h1>
      <p>
        <a href="/app/templates">Back to templates</a>
      </p>
      <p>{template.description}</p>
      <p>
        {mode === "deploy"
          ? `This makes a new workflow of yours from the template and deploys it as an agent. ${TRIGGERS[template.triggerType] ?? ""}`
          : "This makes a new workflow of yours from the template, with the connections and values chosen here; you can change it, run it and deploy it later."}
      </p>
      <ErrorNote message={props.error} />
      <form method="post" action={action} class="card">
        <input type="hidden" name="csrf_token" value={props.csrf} />
        <label for="deploy-name">Workflow name</label>
        <p class="hint" id="deploy-name-hint">
          Left empty, the template's name.
        </p>
        {props.errors.name ? (
          <p class="field-error" id="deploy-name-error">
            {props.errors.name}
          </p>
        ) : null}
        <input
          id="deploy-name"
          type="text"
          name="name"
          maxlength={200}
          value={props.name}
          placeholder={template.name}
          autocomplete="off"
          aria-describedby={props.errors.name ? "deploy-name-hint deploy-name-error" : "deploy-name-hint"}
          aria-invalid={props.errors.name ? "true" : undefined}
        />
        {plan.platforms.length ? (
          <fieldset>
            <legend>Connections</legend>
            <p class="hint">Each platform's steps run with the connection chosen here.</p>
            {plan.platforms.map((platform) => (
              <ConnectionField
                mode={mode}
                platform={platform}
                choice={props.choices[platform]}
                value={props.values[connectionInput(platform)]}
                error={props.errors[connectionInput(platform)]}
              />
            ))}
          </fieldset>
        ) : (
          <p>This template needs no connection.</p>
        )}
        {plan.variables.length ? (
          <fieldset>
            <legend>Variables</legend>
            {plan.variables.map((spec, index) => (
              <VariableField spec={spec} index={index} value={props.values[variableInput(spec.name)]} error={props.errors[variableInput(spec.name)]} />
            ))}
            {plan.hiddenVariables ? (
              <p class="hint">{`${plan.hiddenVariables} more variables keep their defaults; change them on the workflow's page.`}</p>
            ) : null}
          </fieldset>
        ) : null}
        <button type="submit" name="step" value={mode}>
          {verb}
        </button>
      </form>
    </Page>
  );
}

/**
 * A platform's connection: a choice among the person's own (the one the service would take
 * unchosen comes first selected), or, with none, a link to connect one.
 */
function ConnectionField(props: {
  mode: TemplateFormMode;
  platform: string;
  choice?: { label: string; connections: ConnectionChoice[] };
  value?: string;
  error?: string;
}) {
  const { platform } = props;
  const id = `connection-${platform}`;
  const label = props.choice?.label ?? platform;
  const connections = props.choice?.connections ?? [];
  const connect = (
    <a href={`/app/connections/new?platform=${encodeURIComponent(platform)}`} id={`${id}-connect`}>
      Connect {label}
    </a>
  );
  const errorNote = props.error ? (
    <p class="field-error" id={`${id}-error`}>
      {props.error} {connect}
    </p>
  ) : null;
  if (connections.length === 0) {
    return (
      <div>
        <p id={id}>
          <strong>{label}</strong>: you have no {label} connection yet. {props.error ? null : connect}
        </p>
        {props.mode === "use" ? <p class="hint">{`The workflow can be made without it; its ${label} steps need a connection before it runs.`}</p> : null}
        {errorNote}
      </div>
    );
  }
  const fallback = connections.find((c) => c.status === "active") ?? connections[0];
  const selected = props.value || String(fallback?.id ?? "");
  return (
    <div>
      <label for={id}>{label}</label>
      {errorNote}
      <select
        id={id}
        name={connectionInput(platform)}
        aria-invalid={props.error ? "true" : undefined}
        aria-describedby={props.error ? `${id}-error` : undefined}
      >
        {connections.map((connection) => (
          <option value={String(connection.id)} selected={String(connection.id) === selected}>
            {`${connection.name} (${connection.status})`}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A variable, typed as its default's type: text, a number, yes/no, or JSON. */
function VariableField(props: { spec: VariableSpec; index: number; value?: string; error?: string }) {
  const { spec } = props;
  const id = `var-${props.index}`;
  const value = props.value ?? spec.initial;
  const describedBy = [spec.description ? `${id}-hint` : undefined, props.error ? `${id}-error` : undefined].filter(Boolean).join(" ") || undefined;
  const common = { id, name: variableInput(spec.name), "aria-describedby": describedBy, "aria-invalid": props.error ? "true" : undefined };
  const kindHint = spec.kind === "number" ? " (a number)" : spec.kind === "json" ? " (JSON)" : "";
  return (
    <div>
      <label for={id}>
        <code>{spec.name}</code>
        {kindHint}
        {spec.required ? " (required)" : ""}
      </label>
      {spec.description ? (
        <p class="hint" id={`${id}-hint`}>
          {spec.description}
        </p>
      ) : null}
      {props.error ? (
        <p class="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      ) : null}
      {spec.kind === "boolean" ? (
        <select {...common}>
          <option value="true" selected={value === "true"}>
            yes (true)
          </option>
          <option value="false" selected={value !== "true"}>
            no (false)
          </option>
        </select>
      ) : spec.kind === "json" ? (
        <textarea rows={4} spellcheck={false} {...common}>
          {value}
        </textarea>
      ) : (
        <input
          type="text"
          inputmode={spec.kind === "number" ? "decimal" : undefined}
          value={value}
          maxlength={MAX_VARIABLE_CHARS}
          required={spec.required}
          autocomplete="off"
          {...common}
        />
      )}
    </div>
  );
}
