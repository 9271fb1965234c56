import type { ToolResult } from "../../tools/executor";
import type { ToolInfo } from "../../tools/types";
import { ErrorNote, Page } from "../layout";
import { LIVE_SCRIPT_PATH } from "../live-script";
import { FIELDS_STYLE, FormFields } from "../forms/fields";
import type { FieldErrors, FormField, FormValues } from "../forms/form-field";
import { TOOLS_STYLE, sourceOf, toolHref } from "./tools-list";
import { JsonBlock } from "../common";
import type { EventLines } from "./tools-stream";

export interface ToolPageProps {
  email: string;
  csrf: string;
  tool: ToolInfo;
  fields: FormField[];
  values: FormValues;
  fieldErrors?: FieldErrors;
  error?: string;
  /** The last run, when the form was just posted. */
  run?: { result?: ToolResult; events: EventLines };
}

/**
 * `/app/tools/<name>`: a form built from the tool's input schema. Posted plainly, the page comes
 * back with the result and the events of the run; with the script, the same events appear live.
 */
export function ToolPage(props: ToolPageProps) {
  const { tool } = props;
  const action = toolHref(tool.name);
  return (
    <Page title={tool.title} email={props.email} csrf={props.csrf} style={TOOLS_STYLE + FIELDS_STYLE} script={LIVE_SCRIPT_PATH}>
      <h1>{tool.title}</h1>
      <p>
        <a href="/app/tools">Back to tools</a> · <code>{tool.name}</code> · {sourceOf(tool)}
      </p>
      {tool.description ? <p class="description">{tool.description}</p> : null}
      <section class="card" aria-labelledby="run-tool">
        <h2 id="run-tool">Run {tool.name}</h2>
        <ErrorNote message={props.error} />
        <form method="post" action={action} data-live-stream={`${action}/stream`}>
          <input type="hidden" name="csrf_token" value={props.csrf} />
          <FormFields fields={props.fields} values={props.values} errors={props.fieldErrors ?? {}} />
          <button type="submit">Run</button>
        </form>
      </section>
      {/* Filled by the script while a run streams; hidden (and empty) without it. */}
      <section class="card" id="live-run" aria-labelledby="live-heading" hidden>
        <h2 id="live-heading">Live progress</h2>
        <p>The events of a run appear here as they happen.</p>
        <ol class="events" id="live-events" aria-live="polite" />
        <div id="live-result" />
      </section>
      {props.run ? <RunReport {...props.run} /> : null}
    </Page>
  );
}

function RunReport(props: { result?: ToolResult; events: EventLines }) {
  const { result } = props;
  return (
    <>
      <section class="card" aria-labelledby="run-result" id="result">
        <h2 id="run-result">Result</h2>
        {result?.success ? (
          <>
            <p role="status">
              Succeeded in {result.duration_ms} ms (call <code>{result.call_id}</code>).
            </p>
            <JsonBlock value={result.result} />
          </>
        ) : (
          <ErrorNote message={`The tool failed: ${result?.error_message ?? "the hub could not run it."}`} />
        )}
      </section>
      <section class="card" aria-labelledby="run-events">
        <h2 id="run-events">Events</h2>
        <ol class="events">
          {props.events.lines.map((line) => (
            <li>{line}</li>
          ))}
        </ol>
        {props.events.more > 0 ? (
          <p>
            and {props.events.more} more {props.events.more === 1 ? "event" : "events"}
          </p>
        ) : null}
      </section>
    </>
  );
}
