import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import { SCOPES, type Scope } from "../core/scopes";
import { HtmlDocument } from "../http/html-document";
import { SWITCHER_STYLE, ViewerNote, WorkspaceSwitcher } from "./workspace-switcher";

/**
 * Plain, readable pages: system fonts, contrast well above WCAG AA, visible focus, and one column
 * that fits a 375 px screen. Nothing from another origin and no inline script: a page may load
 * the hub's own /app/assets/live.js to enhance it, and works without it.
 *
 * The rules every section uses are here, once (form controls, hints, action rows, status
 * badges, fact lists, scrolling JSON); a page's `style` adds only what is its own.
 */
const STYLE = `
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1a1a1a;background:#fafafa;line-height:1.5}
h1,h2,p{overflow-wrap:anywhere}
header{background:#1f2937;color:#fff;padding:12px 16px;display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center}
header a{color:#fff}
header .brand{font-weight:700;margin-right:auto;text-decoration:none}
nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:4px 16px;margin:0;padding:0}
main{max-width:960px;margin:0 auto;padding:16px}
a{color:#1d4ed8}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
form.inline{display:inline}
label{display:block;font-weight:600;margin:12px 0 4px}
input[type=text],input[type=email],input[type=password],input[type=url],input[type=search],input[type=number],select,textarea{width:100%;max-width:420px;padding:8px;border:1px solid #6b7280;border-radius:4px;font-size:16px;background:#fff}
.hint{margin:0 0 4px;color:#374151;font-size:14px;overflow-wrap:anywhere}
.field-error{margin:0 0 4px;color:#b91c1c;font-weight:600}
.required{font-weight:400;color:#374151}
.check{display:flex;flex-wrap:wrap;gap:0 8px;align-items:baseline;margin-top:12px}.check label{margin:0}.check p{flex-basis:100%}
fieldset{border:1px solid #d1d5db;border-radius:6px;padding:8px 12px;margin:12px 0}
fieldset label{font-weight:400;display:flex;gap:8px;align-items:flex-start}
button{font-size:16px;padding:8px 14px;border-radius:4px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer;margin-top:12px}
button.secondary{background:#fff;color:#1d4ed8}
button.danger{background:#b91c1c;border-color:#b91c1c;margin-top:0}
header button{margin:0;background:transparent;border-color:#fff}
.card{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:16px;margin:16px 0}
.columns{display:flex;flex-wrap:wrap;gap:16px}.columns>.card{flex:1 1 280px}
.notice{background:#ecfdf5;border:1px solid #047857;border-radius:6px;padding:12px;overflow-wrap:anywhere}
.error{background:#fef2f2;border:1px solid #b91c1c;border-radius:6px;padding:12px}
code{background:#f3f4f6;padding:2px 4px;border-radius:3px;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:8px;border-bottom:1px solid #e5e7eb;vertical-align:top}
.table-wrap{overflow-x:auto}
@media (max-width:600px){
table,thead,tbody,tr,th,td{display:block}thead tr{position:absolute;left:-9999px}
tr{border-bottom:1px solid #e5e7eb;padding:8px 0}td{border:none;padding:2px 0}
td[data-label]::before{content:attr(data-label) ": ";font-weight:600}
}
.actions{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center}.actions form{margin:0}.actions button{margin:0}
.step-type{font-size:.875rem;background:#e5e7eb;color:#111827;border-radius:999px;padding:0 8px}
.badge{display:inline-block;font-size:.875rem;border-radius:999px;padding:0 8px;background:#e5e7eb;color:#111827;font-weight:600}
.badge.succeeded{background:#dcfce7;color:#14532d}.badge.failed,.badge.cancelled{background:#fee2e2;color:#7f1d1d}
.badge.running,.badge.waiting,.badge.retrying,.badge.queued{background:#fef3c7;color:#78350f}.badge.featured{background:#92400e;color:#fff}
dl.facts{display:flex;flex-wrap:wrap;gap:4px 16px;margin:8px 0}dl.facts>div{display:flex;gap:4px;min-width:0}
dl.facts dt{font-weight:600}dl.facts dt::after{content:":"}dl.facts dd{margin:0;overflow-wrap:anywhere;min-width:0}
.meta{color:#374151;font-size:14px;margin:4px 0}
.scroll{overflow-x:auto;max-width:100%}.scroll pre{margin:0 0 8px;padding:8px;background:#f3f4f6;border-radius:6px;font-size:14px}
ol.events{padding-left:24px;overflow-wrap:anywhere}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

const SECTIONS: [href: string, label: string][] = [
  ["/", "Overview"],
  ["/app/connections", "Connections"],
  ["/app/platforms", "Custom platforms"],
  ["/app/tools", "Tools"],
  ["/app/conversations", "Chat"],
  ["/app/workflows", "Workflows"],
  ["/app/runs", "Runs"],
  ["/app/agents", "Agents"],
  ["/app/approvals", "Approvals"],
  ["/app/templates", "Templates"],
  ["/app/audit", "Audit log"],
  ["/app/usage", "Usage"],
  ["/app/keys", "API keys"],
  ["/app/apps", "OAuth apps"],
  ["/docs", "API reference"],
];

/**
 * One page of the dashboard. `style` adds a page's own CSS (a constant of its feature file);
 * `script` names a same-origin script that enhances the page (it must work without it).
 */
export function Page(props: { title: string; email?: string; csrf?: string; style?: string; script?: string; children: Child }) {
  return (
    <HtmlDocument>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${props.title} · Agent Automation Hub`}</title>
          {/* The style sheet is a constant of this file: raw, so its quotes are not escaped. */}
          <style>{raw(STYLE + SWITCHER_STYLE)}</style>
          {props.style ? <style>{raw(props.style)}</style> : null}
          {props.script ? <script src={props.script} defer /> : null}
        </head>
        <body>
          <header>
            <a class="brand" href="/">
              Agent Automation Hub
            </a>
            {props.email ? (
              <>
                <nav aria-label="Sections">
                  <ul>
                    {SECTIONS.map(([href, label]) => (
                      <li>
                        <a href={href}>{label}</a>
                      </li>
                    ))}
                  </ul>
                </nav>
                <WorkspaceSwitcher csrf={props.csrf} />
                <form class="inline" method="post" action="/">
                  <input type="hidden" name="csrf_token" value={props.csrf} />
                  <button type="submit" name="step" value="sign_out" aria-label={`Sign out ${props.email}`}>
                    Sign out
                  </button>
                </form>
              </>
            ) : (
              <a href="/docs">API reference</a>
            )}
          </header>
          <main>
            {props.email ? <ViewerNote /> : null}
            {props.children}
          </main>
        </body>
      </html>
    </HtmlDocument>
  );
}

export function ErrorNote(props: { message?: string }) {
  return props.message ? (
    <p class="error" role="alert">
      {props.message}
    </p>
  ) : null;
}

/** Checkboxes for the scopes a new credential may have, each with what it allows. */
export function ScopeChoices(props: { legend: string; checked: (scope: Scope) => boolean }) {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {(Object.entries(SCOPES) as [Scope, string][]).map(([scope, description]) => (
        <label>
          <input type="checkbox" name="scopes" value={scope} checked={props.checked(scope)} />
          <span>
            <code>{scope}</code>: {description}
          </span>
        </label>
      ))}
    </fieldset>
  );
}
