import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { csrfToken } from "../auth/browser-session";
import type { HubError } from "../core/errors";
import type { AppEnv } from "../http/app-env";
import { ERROR_STATUS } from "../http/error-status";
import { MAX_BODY_NESTING } from "../http/middleware";
import { nestsDeeperThan, tooDeepMessage } from "../lib/json-depth";
import { type SignedIn, page } from "./kit";
import { ErrorNote, Page } from "./layout";

/** Helpers the dashboard's sections share: how refusals, ids, JSON fields, times and not-found look everywhere. */

/** The statuses a page shows a service's refusal with. */
export type RefusalStatus = 400 | 403 | 404 | 409 | 413 | 422 | 429;
const PAGE_STATUSES: readonly number[] = [400, 403, 404, 409, 413, 422, 429] satisfies RefusalStatus[];

/**
 * The status a service's refusal is shown with: the REST API's own (`ERROR_STATUS`), so a rate
 * limit is 429 and a conflict 409 on the page as in the API. A failure the page cannot answer
 * with its own status (a provider's 502) is shown as 422: the form stays, with the message.
 */
export function statusOf(error: HubError): RefusalStatus {
  const status = ERROR_STATUS[error.code];
  return PAGE_STATUSES.includes(status) ? (status as RefusalStatus) : 422;
}

/** A service's refusal in one sentence, with the field problems it names. */
export function messageOf(error: HubError): string {
  const detail = error.errors?.map((e) => e.message).join(" ") ?? "";
  return `${error.message} ${detail}`.trim();
}

/**
 * A positive whole-number id as typed in a path segment (`/app/workflows/123` gives "123") or a
 * form field, or undefined (the page then answers "not found"). At most 15 digits: exact as a number.
 */
export const positiveIdOf = (text: string | undefined): number | undefined => (text && /^[1-9]\d{0,14}$/.test(text) ? Number(text) : undefined);

/** Execution ids are made by the hub (`exe_…`); anything else cannot name one. */
export const isExecutionId = (text: string | undefined): text is string => text !== undefined && /^[A-Za-z0-9_-]{1,64}$/.test(text);

/** A JSON field of a form: its value, or the sentence saying why it cannot be used. */
export type ParsedJson<T> = { ok: true; value: T } | { ok: false; message: string; reason: "syntax" | "depth" | "shape" };

/** How a JSON field is named in its messages, and where its value sits in the API's body. */
export interface JsonFieldOptions {
  /** "The steps are" / "The input is" not valid JSON: the verb follows the name. */
  plural?: boolean;
  /** How deep the value sits in the REST API's body: `input_data` is 1, one of a tool's `arguments` 2. */
  depthInBody?: number;
}

/**
 * The text of a form field read as JSON, held to the REST API's nesting limit (`limitNesting`
 * refuses bodies nested deeper than `MAX_BODY_NESTING`) with the API's message, so the
 * dashboard accepts exactly what the API would. `name` starts the messages ("The input").
 */
export function parseJsonField(text: string, name: string, options: JsonFieldOptions = {}): ParsedJson<unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // The parser's own words name the position of the mistake, which is what the person needs.
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: "syntax", message: `${name} ${options.plural ? "are" : "is"} not valid JSON: ${detail}` };
  }
  const limit = MAX_BODY_NESTING - (options.depthInBody ?? 1);
  if (nestsDeeperThan(value, limit)) return { ok: false, reason: "depth", message: tooDeepMessage(limit) };
  return { ok: true, value };
}

/** A form field that must hold a JSON object (empty means `{}`), e.g. a run's input. */
export function parseJsonObject(text: string, name: string, example: string, options: JsonFieldOptions = {}): ParsedJson<Record<string, unknown>> {
  if (!text.trim()) return { ok: true, value: {} };
  const parsed = parseJsonField(text, name, options);
  if (!parsed.ok) return parsed;
  if (!isPlainObject(parsed.value)) return { ok: false, reason: "shape", message: `${name} must be a JSON object, like ${example}.` };
  return { ok: true, value: parsed.value };
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** `2025-05-01 09:30:12 UTC`: times are stored and shown in UTC, to the second. */
export function formatTime(value: Date | string | null | undefined): string {
  if (!value) return "—";
  const iso = typeof value === "string" ? value : value.toISOString();
  return `${iso.slice(0, 19).replace("T", " ")} UTC`;
}

/** `350 ms`, `4.2 s`, `3 min 5 s`: a duration at a glance; `missing` when there is none (yet). */
export function formatDuration(ms: number | null | undefined, missing = "—"): string {
  if (ms === null || ms === undefined) return missing;
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A count of a list read up to one past `cap`: "100+" when there are more than the cap, else the number. */
export const countOf = (count: number, cap: number) => (count > cap ? `${cap}+` : String(count));

/** Longer JSON is cut on the page (a step's result can be large); the API has it whole. */
export const MAX_SHOWN_JSON = 20 * 1024;

/**
 * A JSON value shown indented, in a box that scrolls sideways on a narrow screen; the box takes
 * keyboard focus so it can be scrolled without a mouse. `text` is stored JSON (shown as it is
 * when it is not JSON, like "Error: …"); `value` a value. Cut past `MAX_SHOWN_JSON` characters.
 */
export function JsonBlock(props: { value?: unknown; text?: string; label?: string }) {
  const full = props.text !== undefined ? indented(props.text) : (JSON.stringify(props.value, null, 2) ?? "null");
  const shown = full.length > MAX_SHOWN_JSON ? `${full.slice(0, MAX_SHOWN_JSON)}\n…truncated, see the API for the whole value` : full;
  return (
    <>
      {props.label ? <p class="meta">{props.label}</p> : null}
      <div class="scroll">
        <pre tabindex={0}>{shown}</pre>
      </div>
    </>
  );
}

function indented(text: string): string {
  // Stored text is bounded by the services; very long text is shown as stored rather than re-indented.
  if (text.length > MAX_SHOWN_JSON * 4) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** One term and its value in a `<dl class="facts">`. */
export function Fact(props: { term: string; children: Child }) {
  return (
    <div>
      <dt>{props.term}</dt>
      <dd>{props.children}</dd>
    </div>
  );
}

/**
 * Someone else's (or no) object: one answer for both, so nothing is learnt about it. `message`
 * says what was not found; `back` links to the section's list.
 */
export function NotFoundPage(props: { email: string; csrf: string; message: string; back: { href: string; label: string } }) {
  return (
    <Page title="Not found" email={props.email} csrf={props.csrf}>
      <h1>Not found</h1>
      <ErrorNote message={props.message} />
      <p>
        <a href={props.back.href}>{props.back.label}</a>
      </p>
    </Page>
  );
}

/** The not-found page, answered with 404. */
export async function renderNotFound(c: Context<AppEnv>, signedIn: SignedIn, message: string, back: { href: string; label: string }) {
  const csrf = await csrfToken(c, signedIn.ctx.actor.id);
  return page(c, <NotFoundPage email={signedIn.email} csrf={csrf} message={message} back={back} />, 404);
}

/** One column of a `DataTable`: its header, and what each row shows in it. */
export interface Column<T> {
  label: string;
  /** The header is for screen readers only (an actions column); its cells then carry no data-label. */
  hideLabel?: boolean;
  /** A class on each of the column's cells, e.g. "wrap". */
  className?: string;
  cell: (row: T) => Child;
}

/**
 * A table that stacks on phones: each cell carries its column's name in `data-label`, which the
 * base CSS shows before the value when the rows become cards. `caption` names the table for
 * screen readers; `captionHidden` keeps it off the screen.
 */
export function DataTable<T>(props: { rows: T[]; columns: Column<T>[]; caption?: string; captionHidden?: boolean }) {
  return (
    <div class="table-wrap">
      <table>
        {props.caption ? <caption class={props.captionHidden ? "visually-hidden" : undefined}>{props.caption}</caption> : null}
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col">{column.hideLabel ? <span class="visually-hidden">{column.label}</span> : column.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr>
              {props.columns.map((column) => (
                <td data-label={column.hideLabel ? undefined : column.label} class={column.className}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A one-button POST form (Revoke, Delete, Test): the CSRF token, any hidden fields, and the button
 * that sends `step`. `ariaLabel` names the button when several on the page look the same.
 */
export function PostButton(props: {
  action: string;
  csrf: string;
  step: string;
  hidden?: Record<string, string>;
  label: string;
  ariaLabel?: string;
  className?: string;
}) {
  return (
    <form class="inline" method="post" action={props.action}>
      <input type="hidden" name="csrf_token" value={props.csrf} />
      {Object.entries(props.hidden ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button class={props.className} type="submit" name="step" value={props.step} aria-label={props.ariaLabel}>
        {props.label}
      </button>
    </form>
  );
}
