import { HtmlDocument } from "../http/html-document";
import type { Child } from "hono/jsx";
import { ERROR_CODES, type ErrorCode } from "../core/errors";
import { ERROR_STATUS } from "../http/error-status";
import { SCOPES } from "../core/scopes";
import { fieldsOf, type Field } from "./render-schema";

type Doc = Record<string, any>;
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

interface Operation {
  method: string;
  path: string;
  op: Doc;
}

const styles = `
  body { font-family: system-ui, sans-serif; margin: 0; color: #1d2330; background: #fafbfc; line-height: 1.5; }
  header, main { max-width: 980px; margin: 0 auto; padding: 0 20px; }
  header { padding-top: 28px; } h1 { margin-bottom: 4px; } nav a { margin-right: 14px; }
  section.op { background: #fff; border: 1px solid #e2e5ea; border-radius: 8px; padding: 14px 18px; margin: 14px 0; }
  .method { display: inline-block; min-width: 64px; font-weight: 700; text-transform: uppercase; font-family: ui-monospace, monospace; }
  .get { color: #1b7f3b; } .post { color: #2456d3; } .put, .patch { color: #a16207; } .delete { color: #b42318; }
  code, .path { font-family: ui-monospace, monospace; font-size: .9rem; }
  table { border-collapse: collapse; width: 100%; margin: 8px 0; font-size: .92rem; }
  th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid #eee; vertical-align: top; }
  .req { color: #b42318; font-size: .8rem; } .muted { color: #667; }
`;

function FieldTable(props: { fields: Field[] }) {
  if (props.fields.length === 0) return null;
  return (
    <table>
      <tr>
        <th>Field</th>
        <th>Type</th>
        <th>Description</th>
      </tr>
      {props.fields.map((f) => (
        <tr>
          <td>
            <code>{f.name}</code> {f.required ? <span class="req">required</span> : null}
          </td>
          <td>
            <code>{f.type}</code>
          </td>
          <td>{f.description}</td>
        </tr>
      ))}
    </table>
  );
}

function OperationView(props: { operation: Operation; components: Record<string, Doc> }) {
  const { method, path, op } = props.operation;
  const scopes: string[] = (op.security ?? []).flatMap((s: Doc) => Object.values(s).flat());
  const body = op.requestBody?.content ?? {};
  const bodyType = Object.keys(body)[0];
  const params: Doc[] = op.parameters ?? [];
  return (
    <section class="op" id={`${method}-${path}`}>
      <div>
        <span class={`method ${method}`}>{method}</span> <span class="path">{path}</span> — {op.summary}
      </div>
      {op.description ? <p>{op.description}</p> : null}
      <p class="muted">
        {scopes.length ? (
          <>
            Scope: <code>{scopes.join(", ")}</code>
          </>
        ) : (
          "No credential needed."
        )}
      </p>
      {params.length ? (
        <FieldTable
          fields={params.map((p) => ({
            name: `${p.name} (${p.in})`,
            type: p.schema?.type ?? "string",
            required: Boolean(p.required),
            description: p.description ?? "",
          }))}
        />
      ) : null}
      {bodyType ? (
        <>
          <p>
            Body (<code>{bodyType}</code>):
          </p>
          <FieldTable fields={fieldsOf(body[bodyType].schema, props.components)} />
        </>
      ) : null}
      <p class="muted">
        Responses:{" "}
        {Object.entries<Doc>(op.responses ?? {})
          .map(([status, r]) => `${status} ${r.description ?? ""}`)
          .join(" · ")}
      </p>
    </section>
  );
}

export function DocsPage(props: { doc: Doc }) {
  const components = props.doc.components?.schemas ?? {};
  const operations: Operation[] = Object.entries<Doc>(props.doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] })),
  );
  const tags = [...new Set(operations.map((o) => o.op.tags?.[0] ?? "Other"))];
  const Section = (p: { id: string; title: string; children: Child }) => (
    <section id={p.id}>
      <h2>{p.title}</h2>
      {p.children}
    </section>
  );
  return (
    <HtmlDocument>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>API reference · Agent Automation Hub</title>
          <style>{styles}</style>
        </head>
        <body>
          <header>
            <h1>Agent Automation Hub API</h1>
            <p class="muted">
              Version {props.doc.info?.version}. Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1).
            </p>
            <nav>
              <a href="#authentication">Authentication</a>
              <a href="#mcp">MCP server</a>
              <a href="#errors">Errors</a>
              {tags.map((t) => (
                <a href={`#tag-${t}`}>{t}</a>
              ))}
            </nav>
          </header>
          <main>
            <Section id="authentication" title="Authentication">
              <p>
                Send <code>Authorization: Bearer &lt;credential&gt;</code> on every <code>/v1</code> request. The credential is an API key (
                <code>ahk_live_…</code> against production, <code>ahk_test_…</code> against sandbox; the other kind gets 401), an OAuth 2.0 access token from{" "}
                <code>POST /v1/auth/token</code>, or the JWT from <code>POST /v1/auth/login</code>. Apps send people to
                <code> GET /auth/authorize</code> (authorization code with PKCE S256).
              </p>
              <table>
                <tr>
                  <th>Scope</th>
                  <th>Allows</th>
                </tr>
                {Object.entries(SCOPES).map(([scope, text]) => (
                  <tr>
                    <td>
                      <code>{scope}</code>
                    </td>
                    <td>{text}</td>
                  </tr>
                ))}
              </table>
              <p>
                Rate limits: every response to an authenticated request carries <code>RateLimit</code> and <code>RateLimit-Policy</code>, and over the limit the
                answer is 429 with <code>Retry-After</code>.
              </p>
            </Section>
            <Section id="mcp" title="MCP server">
              <p>
                <code>POST /mcp</code> is the hub as an MCP server (streamable HTTP, stateless: no session id; <code>GET</code> and <code>DELETE</code> answer
                405). It takes the same bearer credentials. Tools: your whole catalog under the names of <code>GET /v1/tools</code>, with the results of{" "}
                <code>POST /v1/tools/execute</code> as structured content; every active workflow as <code>workflow_&lt;id&gt;</code> (its variables are the
                inputs; it answers with the finished execution, waiting up to 60 s); <code>hub_list_workflows</code>, <code>hub_get_execution</code> and{" "}
                <code>hub_execute_agent</code>. Resources: the templates, as <code>template://&lt;id&gt;</code>. Listing needs <code>data:read</code>, running
                needs <code>workflow:execute</code> (403 <code>insufficient_scope</code> otherwise).
              </p>
              <p>
                A client with no credential gets 401 with <code>WWW-Authenticate: Bearer resource_metadata="…/.well-known/oauth-protected-resource"</code> (RFC
                9728), finds the authorization server metadata at <code>/.well-known/oauth-authorization-server</code>, registers itself at{" "}
                <code>POST /v1/auth/register-client</code> (RFC 7591, public clients with PKCE, https or loopback redirect URIs) and sends the person to{" "}
                <code>/auth/authorize</code>.
              </p>
            </Section>
            <Section id="errors" title="Errors">
              <p>
                Errors are RFC 9457 problem details (<code>application/problem+json</code>): <code>type</code>, <code>title</code>,<code> status</code>,{" "}
                <code>detail</code>, a stable <code>code</code>, the <code>request_id</code>, and for invalid fields an
                <code> errors</code> list of <code>{"{location, field, message}"}</code>. The token endpoint answers RFC 6749 errors instead.
              </p>
              <table>
                <tr>
                  <th>code</th>
                  <th>HTTP status</th>
                  <th>Meaning</th>
                </tr>
                {(Object.entries(ERROR_CODES) as [ErrorCode, string][]).map(([code, title]) => (
                  <tr id={`error-${code}`}>
                    <td>
                      <code>{code}</code>
                    </td>
                    <td>{ERROR_STATUS[code]}</td>
                    <td>{title}</td>
                  </tr>
                ))}
              </table>
            </Section>
            {tags.map((tag) => (
              <Section id={`tag-${tag}`} title={tag}>
                {operations
                  .filter((o) => (o.op.tags?.[0] ?? "Other") === tag)
                  .map((o) => (
                    <OperationView operation={o} components={components} />
                  ))}
              </Section>
            ))}
          </main>
        </body>
      </html>
    </HtmlDocument>
  );
}
