import { isPlainObject } from "../common";
import { handlerStepsOf, idOf, nestedKeys, type StepPath, stepAnchor, typeOf } from "./workflow-fields";

/**
 * The steps drawn as a flow without script: nested ordered lists of boxes joined by CSS arrows,
 * top to bottom, so it fits a phone. The lists are the text alternative themselves (a screen
 * reader hears "list, 3 items"), and the arrows are decoration drawn with borders.
 */
export const GRAPH_STYLE = `
.flow{list-style:none;margin:0;padding:0}
.flow>li{position:relative;margin:0 0 32px;border:2px solid #4b5563;border-radius:8px;background:#fff;padding:8px 12px;overflow-wrap:anywhere}
.flow>li:last-child{margin-bottom:0}
.flow>li:not(:last-child)::after{content:"";position:absolute;left:24px;top:100%;margin-top:2px;height:18px;border-left:2px solid #4b5563}
.flow>li:not(:last-child)::before{content:"";position:absolute;left:19px;top:100%;margin-top:20px;border:6px solid transparent;border-top:8px solid #4b5563;border-bottom:0}
.flow>li:target,.flow>li:focus{outline:3px solid #f59e0b;outline-offset:2px}
.flow p{margin:4px 0}
.step-head{display:flex;flex-wrap:wrap;gap:4px 8px;align-items:baseline}
.flow>li.type-condition{border-left:8px solid #6d28d9}.flow>li.type-for_each{border-left:8px solid #047857}
.flow>li.type-tool{border-left:8px solid #1d4ed8}.flow>li.type-wait_for_event,.flow>li.type-delay{border-left:8px solid #b45309}
.branches{display:flex;flex-wrap:wrap;gap:12px;margin-top:8px}
.branch,.loop-body{flex:1 1 220px;border:1px dashed #6b7280;border-radius:6px;padding:8px;background:#f9fafb}
.loop-body{border-color:#047857}
.branch-label{font-weight:600}
.flow>li.has-error{border-color:#b91c1c;background:#fef2f2}
.step-errors{color:#7f1d1d;margin:4px 0;padding-left:20px}
`;

const KNOWN_TYPES = new Set(["tool", "condition", "set", "delay", "wait_for_event", "llm", "for_each", "workflow"]);
const MAX_SUMMARY = 300;

/**
 * Draws steps as entered (so it is lenient: a step of the wrong shape is still drawn, as far as
 * it can be). `problems` holds messages by step anchor, shown inside the box they concern.
 */
export function StepGraph(props: { steps: unknown[]; label: string; problems?: Map<string, string[]> }) {
  if (props.steps.length === 0) return <p>No steps yet. Add some in the editor below.</p>;
  return <StepList steps={props.steps} path={[]} label={props.label} problems={props.problems ?? new Map()} />;
}

function StepList(props: { steps: unknown[]; path: StepPath; label: string; problems: Map<string, string[]> }) {
  return (
    <ol class="flow" aria-label={props.label}>
      {props.steps.map((step, index) => (
        <StepBox step={step} path={[...props.path, index]} problems={props.problems} />
      ))}
    </ol>
  );
}

function StepBox(props: { step: unknown; path: StepPath; problems: Map<string, string[]> }) {
  const { step, path } = props;
  const anchor = stepAnchor(path);
  const id = idOf(step) ?? "(no id)";
  const type = typeOf(step) ?? "unknown type";
  const errors = props.problems.get(anchor);
  const classes = [KNOWN_TYPES.has(type) ? `type-${type}` : "", errors ? "has-error" : ""].filter(Boolean).join(" ");
  const name = isPlainObject(step) && typeof step.name === "string" ? step.name : undefined;
  const handlerSteps = handlerStepsOf(step);
  return (
    <li id={anchor} class={classes || undefined} tabindex={-1}>
      <p class="step-head">
        <code>{id}</code> <span class="step-type">{type}</span>
      </p>
      {name ? <p>{name}</p> : null}
      <StepSummary step={step} />
      {errors ? (
        <ul class="step-errors" aria-label={`Problems with step ${id}`}>
          {errors.map((message) => (
            <li>{message}</li>
          ))}
        </ul>
      ) : null}
      {nestedKeys(step).length ? <NestedSteps step={step as Record<string, unknown>} id={id} path={path} problems={props.problems} /> : null}
      {handlerSteps ? (
        <div class="branches">
          <div class="branch">
            <p class="branch-label">On error (then the run goes on)</p>
            <StepList steps={handlerSteps} path={[...path, "on_error", "steps"]} label={`Steps when ${id} fails`} problems={props.problems} />
          </div>
        </div>
      ) : null}
    </li>
  );
}

/** A condition's two branches side by side (stacked on a phone), or a loop's body. */
function NestedSteps(props: { step: Record<string, unknown>; id: string; path: StepPath; problems: Map<string, string[]> }) {
  const { step, id, path, problems } = props;
  const branch = (key: string, title: string, listLabel: string) => {
    const inner = Array.isArray(step[key]) ? (step[key] as unknown[]) : [];
    return (
      <div class={key === "steps" ? "loop-body" : "branch"}>
        <p class="branch-label">{title}</p>
        {inner.length ? <StepList steps={inner} path={[...path, key]} label={listLabel} problems={problems} /> : <p>Nothing.</p>}
      </div>
    );
  };
  if (step.type === "for_each") {
    const item = typeof step.as === "string" ? step.as : "item";
    return <div class="branches">{branch("steps", `For each ${item}, in turn`, `Steps ${id} runs for each ${item}`)}</div>;
  }
  return (
    <div class="branches">
      {branch("then", "Then (condition true)", `Steps when ${id} is true`)}
      {branch("else", "Else (condition false)", `Steps when ${id} is false`)}
    </div>
  );
}

/** One line saying what the step does, with the names that matter (the tool, the event…). */
function StepSummary(props: { step: unknown }) {
  const step = isPlainObject(props.step) ? props.step : {};
  const text = (value: unknown) => clip(typeof value === "string" ? value : (JSON.stringify(value) ?? ""));
  switch (step.type) {
    case "tool":
      return typeof step.tool === "string" ? (
        <p>
          Tool: <code>{text(step.tool)}</code>
        </p>
      ) : (
        <p>Tool: none named</p>
      );
    case "condition":
      return (
        <p>
          If <code>{clip(conditionText(step.condition))}</code>
        </p>
      );
    case "set":
      return <p>Sets {isPlainObject(step.values) ? Object.keys(step.values).join(", ") || "nothing" : "?"}</p>;
    case "delay":
      return <p>Waits {text(step.seconds)} s</p>;
    case "wait_for_event":
      return (
        <p>
          Waits for the event <code>{text(step.event)}</code>, at most {text(step.timeout_seconds)} s, then{" "}
          {step.on_timeout === "continue" ? "continues" : "fails"}
        </p>
      );
    case "llm":
      return (
        <p>
          Asks {step.provider || step.model ? [step.provider, step.model].filter(Boolean).map(text).join(" / ") : "the default model"} for{" "}
          {step.output === "json" ? "JSON" : "text"}
        </p>
      );
    case "for_each":
      return (
        <p>
          Loops over {Array.isArray(step.items) ? `${step.items.length} listed items` : <code>{text(step.items)}</code>}
          {typeof step.concurrency === "number" && step.concurrency > 1 ? `, ${step.concurrency} at a time` : ""}
        </p>
      );
    case "workflow":
      return typeof step.workflow_id === "number" ? (
        <p>
          Runs <a href={`/app/workflows/${step.workflow_id}`}>workflow {step.workflow_id}</a> as a child run
        </p>
      ) : (
        <p>Runs another workflow</p>
      );
    default:
      return null;
  }
}

/** `score greater_than 10 and not (plan equals "free")`: a condition as people read it. */
export function conditionText(condition: unknown, nested = false): string {
  if (!isPlainObject(condition)) return "?";
  const group = (parts: unknown, joiner: string) => {
    const joined = (Array.isArray(parts) ? parts : []).map((part) => conditionText(part, true)).join(` ${joiner} `);
    return nested ? `(${joined})` : joined;
  };
  if ("and" in condition) return group(condition.and, "and");
  if ("or" in condition) return group(condition.or, "or");
  if ("not" in condition) return `not (${conditionText(condition.not)})`;
  const value = condition.value === undefined ? "" : ` ${JSON.stringify(condition.value)}`;
  return `${String(condition.field)} ${String(condition.operator)}${value}`;
}

const clip = (value: string) => (value.length > MAX_SUMMARY ? `${value.slice(0, MAX_SUMMARY)}…` : value);
