import { StepProblems } from "./step-problems";
import { MAX_DESCRIPTION, MAX_NAME, type StepErrorGroup, stepAnchor } from "./workflow-fields";

/** What the person typed into a workflow form, given back to them when it is refused. */
export interface WorkflowDraft {
  name: string;
  description: string;
  steps: string;
  active?: boolean;
}

/**
 * Why a form was refused: one sentence, then each problem under the step it belongs to. With
 * `linkSteps` (the graph of the entered steps is on the page) each step links to its box there.
 */
export function WorkflowErrors(props: { message?: string; groups?: StepErrorGroup[]; linkSteps?: boolean }) {
  if (!props.message && !props.groups?.length) return null;
  return (
    <div class="error" role="alert">
      <p>
        <strong>{props.message ?? "The workflow was not saved."}</strong>
      </p>
      {props.groups?.length ? (
        <ul>
          {props.groups.map((group) => (
            <li>
              {props.linkSteps && group.path ? <a href={`#${stepAnchor(group.path)}`}>{group.label}</a> : <strong>{group.label}</strong>}
              <StepProblems problems={group.problems} />
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** Name, Description (and Active when editing) and the "Steps (JSON)" textarea of a workflow form. */
export function WorkflowFields(props: { prefix: string; draft: WorkflowDraft; withActive?: boolean }) {
  const { prefix, draft } = props;
  return (
    <>
      <label for={`${prefix}-name`}>Name</label>
      <input id={`${prefix}-name`} type="text" name="name" required maxlength={MAX_NAME} value={draft.name} />
      <label for={`${prefix}-description`}>Description</label>
      <textarea id={`${prefix}-description`} name="description" rows={2} maxlength={MAX_DESCRIPTION}>
        {draft.description}
      </textarea>
      {props.withActive ? (
        <fieldset>
          <legend>Status</legend>
          <label>
            <input type="checkbox" name="active" value="on" checked={draft.active} />
            <span>Active (it can run; unticked, it is paused)</span>
          </label>
        </fieldset>
      ) : null}
      <label for={`${prefix}-steps`}>Steps (JSON)</label>
      <p id={`${prefix}-steps-hint`} class="hint">
        An array of steps, each with a unique <code>id</code> and a <code>type</code>. The whole form may hold at most 256 KiB.
      </p>
      <textarea id={`${prefix}-steps`} class="json" name="steps" rows={14} spellcheck={false} aria-describedby={`${prefix}-steps-hint`}>
        {draft.steps}
      </textarea>
      <StepTypesHelp />
    </>
  );
}

const STEP_TYPES: [type: string, shape: string][] = [
  ["tool", '{"id": "make_id", "type": "tool", "tool": "uuid_generate", "arguments": {}}'],
  ["condition", '{"id": "check", "type": "condition", "condition": {"field": "input.score", "operator": "greater_than", "value": 10}, "then": [], "else": []}'],
  ["set", '{"id": "remember", "type": "set", "values": {"greeting": "Hello {{input.name}}"}}'],
  ["delay", '{"id": "pause", "type": "delay", "seconds": 60}'],
  ["wait_for_event", '{"id": "approval", "type": "wait_for_event", "event": "approved", "timeout_seconds": 86400, "on_timeout": "fail"}'],
  ["llm", '{"id": "draft", "type": "llm", "prompt": "Write a welcome note for {{input.name}}", "output": "text"}'],
  ["for_each", '{"id": "each_lead", "type": "for_each", "items": "{{input.leads}}", "as": "lead", "steps": []}'],
  ["workflow", '{"id": "child", "type": "workflow", "workflow_id": 12, "input": {}}'],
  [
    "code",
    '{"id": "total", "type": "code", "code": "console.log(input.items.length);\\nreturn input.items.reduce((sum, item) => sum + item.price, 0);", "input": {"items": "{{input.items}}"}, "cpu_ms": 200}',
  ],
];

/** The shape of each step type, folded away until asked for. */
function StepTypesHelp() {
  return (
    <details>
      <summary>Step types</summary>
      <ul>
        {STEP_TYPES.map(([type, shape]) => (
          <li>
            <strong>{type}</strong>: <code>{shape}</code>
          </li>
        ))}
      </ul>
      <p>
        Values may use <code>{"{{input.…}}"}</code>, <code>{"{{steps.<id>.result…}}"}</code> and, inside a loop, <code>{"{{item}}"}</code> and{" "}
        <code>{"{{index}}"}</code>.
      </p>
    </details>
  );
}

/** Editor styles shared by the workflow pages (the common rules are the layout's). */
export const EDITOR_STYLE = `
textarea.json{max-width:100%;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:14px}
.warning{background:#fffbeb;border:1px solid #b45309;border-radius:6px;padding:12px;overflow-wrap:anywhere}
`;
