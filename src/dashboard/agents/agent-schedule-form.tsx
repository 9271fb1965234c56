import { type ScheduleField, type ScheduleFields, formatInstant } from "./agent-schedule";

/** What "Preview schedule" found: the next run times, or why the schedule is not valid. */
export interface SchedulePreview {
  runs: Date[];
  timeZone: string;
  error?: { field: ScheduleField; message: string };
}

const SCHEDULE_ERROR_ID = "schedule-error";

/**
 * The schedule choice shared by the deploy form and the agent page: none, an interval or a cron
 * in a time zone. Every field keeps what was typed, and a field found wrong is marked invalid and
 * pointed at its message.
 */
export function ScheduleFieldset(props: { fields: ScheduleFields; minInterval: number; preview?: SchedulePreview; headingLevel: 2 | 3 }) {
  const { fields, preview } = props;
  const invalid = (field: ScheduleField) =>
    preview?.error?.field === field
      ? { "aria-invalid": "true", "aria-describedby": `${SCHEDULE_ERROR_ID} ${field}-help` }
      : { "aria-describedby": `${field}-help` };
  return (
    <>
      <fieldset>
        <legend>Schedule</legend>
        <label>
          <input type="radio" name="schedule_type" value="none" checked={fields.type === "none"} />
          <span>No schedule (events and manual runs only)</span>
        </label>
        <label>
          <input type="radio" name="schedule_type" value="interval" checked={fields.type === "interval"} />
          <span>Every N seconds</span>
        </label>
        <div class="schedule-detail">
          <label for="interval_seconds">Interval in seconds</label>
          {/* No browser-side bounds: the field stays in the form when another schedule type is
              chosen, and an old value out of bounds would then block the submit. The server's
              message says what is wrong when the interval is the one used. */}
          <input
            id="interval_seconds"
            type="text"
            inputmode="numeric"
            name="interval_seconds"
            maxlength={9}
            value={fields.interval}
            {...invalid("interval_seconds")}
          />
          <p id="interval_seconds-help" class="hint">
            Used when "Every N seconds" is chosen; at least {props.minInterval} on this deployment.
          </p>
        </div>
        <label>
          <input type="radio" name="schedule_type" value="cron" checked={fields.type === "cron"} />
          <span>Cron</span>
        </label>
        <div class="schedule-detail">
          <label for="cron_expression">Cron expression</label>
          <input
            id="cron_expression"
            type="text"
            name="cron_expression"
            maxlength={100}
            value={fields.cron}
            placeholder="0 9 * * 1"
            {...invalid("cron_expression")}
          />
          <p id="cron_expression-help" class="hint">
            Five fields: minute, hour, day of month, month, day of week. <code>0 9 * * 1</code> is every Monday at 09:00.
          </p>
          <label for="timezone">Time zone</label>
          <input id="timezone" type="text" name="timezone" maxlength={64} value={fields.timezone || "UTC"} {...invalid("timezone")} />
          <p id="timezone-help" class="hint">
            An IANA time zone such as Europe/Paris or America/New_York; the cron expression is read on its clock.
          </p>
        </div>
      </fieldset>
      {preview ? <PreviewResult preview={preview} headingLevel={props.headingLevel} /> : null}
    </>
  );
}

function PreviewResult(props: { preview: SchedulePreview; headingLevel: 2 | 3 }) {
  const { preview } = props;
  const Heading = props.headingLevel === 2 ? "h2" : "h3";
  if (preview.error) {
    return (
      <p id={SCHEDULE_ERROR_ID} class="error" role="alert">
        {preview.error.message}
      </p>
    );
  }
  return (
    <div class="preview" id="schedule-preview">
      <Heading>Preview: next runs</Heading>
      {preview.runs.length === 0 ? (
        <p>No schedule: the agent runs only when an event arrives or when you run it.</p>
      ) : (
        <RunTimes runs={preview.runs} timeZone={preview.timeZone} />
      )}
    </div>
  );
}

/** Run times in the schedule's own zone, with the exact instant in `datetime` (and UTC alongside). */
export function RunTimes(props: { runs: Date[]; timeZone: string }) {
  return (
    <ol class="run-times">
      {props.runs.map((run) => (
        <li>
          <time datetime={run.toISOString()}>{formatInstant(run, props.timeZone)}</time>
          {props.timeZone.toUpperCase() === "UTC" ? null : <span class="hint"> ({formatInstant(run, "UTC")})</span>}
        </li>
      ))}
    </ol>
  );
}

/** The agent pages' own CSS, added to the base style sheet. */
export const AGENT_STYLE = `
.schedule-detail{margin:0 0 8px 28px}.schedule-detail label{display:block;font-weight:600}
.hint{color:#4b5563;margin:4px 0;font-size:.95em}
.preview{background:#eff6ff;border:1px solid #1d4ed8;border-radius:6px;padding:8px 12px;margin:12px 0}
dl.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:8px 16px;margin:0}
dl.stats div{background:#f9fafb;border-radius:6px;padding:8px}dl.stats dt{font-size:.9em;color:#374151}dl.stats dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.chart>svg{width:100%;height:auto;max-height:240px;display:block}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;list-style:none;padding:0;margin:8px 0}
.legend svg{vertical-align:middle;margin-right:4px}
.actions{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-end}.actions form{margin:0}.actions button{margin-top:0}
textarea.input-json{font-family:ui-monospace,monospace}
`;
