import type { StepTestResult } from "../../executions/test-step";
import { JsonBlock } from "../common";
import { StepProblems } from "./step-problems";
import type { StepErrorGroup } from "./workflow-fields";

/** What "Run this step" was given, and what it answered (a run's outcome, or why it did not run). */
export interface StepTestView {
  stepId: string;
  input: string;
  outcome?: StepTestResult;
  error?: string;
}

/**
 * "Run this step", inside the edit form: runs one of the entered code steps (as typed, not as
 * saved) with an input, as `POST /v1/workflows/test-step` does, and shows what it returned, its
 * console lines or its error. It posts the whole form, so the editor keeps what was typed; nothing
 * is saved.
 */
export function StepTestFields(props: { prefix: string; codeStepIds: string[]; test?: StepTestView }) {
  const { prefix, test } = props;
  const id = (name: string) => `${prefix}-test-${name}`;
  return (
    <fieldset id={id("fields")}>
      <legend>Run a code step</legend>
      <p class="hint">
        Runs one <code>code</code> step of the steps above, as typed, in the same sandbox and with the same limits as a run. Nothing is saved.
      </p>
      <label for={id("step")}>Code step id</label>
      <input
        id={id("step")}
        type="text"
        name="test_step_id"
        maxlength={100}
        list={id("ids")}
        value={test?.stepId ?? (props.codeStepIds.length === 1 ? props.codeStepIds[0] : "")}
        autocomplete="off"
      />
      <datalist id={id("ids")}>
        {props.codeStepIds.map((stepId) => (
          <option value={stepId} />
        ))}
      </datalist>
      <label for={id("input")}>Step input (JSON)</label>
      <p id={id("input-hint")} class="hint">
        What the code gets as <code>input</code>. Left empty: the step's own <code>input</code> as written, or{" "}
        <code>{'{"input": {}, "steps": {}, "variables": {}}'}</code>.
      </p>
      <textarea id={id("input")} class="json" name="test_input" rows={4} spellcheck={false} aria-describedby={id("input-hint")}>
        {test?.input ?? ""}
      </textarea>
      <button type="submit" class="secondary" name="step" value="test_step">
        Run this step
      </button>
      {test ? <StepTestOutcome id={id("result")} test={test} /> : null}
    </fieldset>
  );
}

function StepTestOutcome(props: { id: string; test: StepTestView }) {
  const { outcome, error } = props.test;
  if (error || !outcome) {
    return (
      <p class="error" role="alert" id={props.id}>
        {error ?? "The step did not run."}
      </p>
    );
  }
  const succeeded = outcome.status === "succeeded";
  return (
    <div id={props.id} role="status" class={succeeded ? "notice" : "error"}>
      <p>
        <strong>
          Step "{props.test.stepId}" {succeeded ? "succeeded" : "failed"}
        </strong>{" "}
        in {outcome.duration_ms} ms (not saved).
      </p>
      {succeeded ? <JsonBlock label="Returned" value={outcome.result} /> : <p>{outcome.error}</p>}
      {outcome.logs.length ? (
        <>
          <p class="meta">Console</p>
          <div class="scroll">
            <pre tabindex={0}>{outcome.logs.join("\n")}</pre>
          </div>
        </>
      ) : (
        <p class="meta">No console lines.</p>
      )}
      {outcome.logs_dropped ? <p class="meta">{`${outcome.logs_dropped} more console lines were not kept.`}</p> : null}
    </div>
  );
}

/**
 * Placeholders that would have no value when their step runs, shown before saving. The person
 * can save anyway (the run's input may give them): "Save anyway" ("Create anyway") sits in the form.
 */
export function PlaceholderWarnings(props: { groups?: StepErrorGroup[]; anyway?: { id: string; label: string } }) {
  if (!props.groups?.length) return null;
  const anyway = props.anyway ?? { id: "edit-workflow-save-anyway", label: "Save anyway" };
  return (
    <div class="warning" role="status" id="placeholder-warnings">
      <p>
        <strong>Not saved yet: some placeholders would have no value.</strong> A step fails on a placeholder with no value and no <code>| default: "…"</code>.
        Fix them in the editor, or choose <a href={`#${anyway.id}`}>{anyway.label}</a>.
      </p>
      <ul>
        {props.groups.map((group) => (
          <li>
            <strong>{group.label}</strong>
            <StepProblems problems={group.problems} />
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The ids of the code steps among entered steps, nested ones included, in order. */
export function codeStepIds(steps: unknown[]): string[] {
  const ids: string[] = [];
  const walk = (list: unknown[], depth: number) => {
    if (depth > 16) return;
    for (const step of list) {
      if (typeof step !== "object" || step === null || Array.isArray(step)) continue;
      const record = step as Record<string, unknown>;
      if (record.type === "code" && typeof record.id === "string") ids.push(record.id);
      for (const key of ["then", "else", "steps"]) if (Array.isArray(record[key])) walk(record[key] as unknown[], depth + 1);
    }
  };
  walk(steps, 0);
  return ids;
}

/** A step among entered steps by its id, wherever it is nested (any type: the test refuses the others). */
export function findEnteredStep(steps: unknown[], id: string): Record<string, unknown> | undefined {
  let found: Record<string, unknown> | undefined;
  const walk = (list: unknown[], depth: number) => {
    if (depth > 16 || found) return;
    for (const step of list) {
      if (typeof step !== "object" || step === null || Array.isArray(step)) continue;
      const record = step as Record<string, unknown>;
      if (record.id === id) {
        found = record;
        return;
      }
      for (const key of ["then", "else", "steps"]) if (Array.isArray(record[key])) walk(record[key] as unknown[], depth + 1);
    }
  };
  walk(steps, 0);
  return found;
}
