import { ErrorNote, Page } from "../layout";

export interface ImportedView {
  workflows: { id: number; name: string; ref?: string }[];
  warnings: { node?: string; reason: string }[];
}

/**
 * `/app/workflows/import`: paste or upload a workflow bundle (from "Export") or an n8n workflow
 * export; which one it is is seen from its content. After an import: the new workflows and what
 * could not be carried over.
 */
export function WorkflowImportPage(props: {
  email: string;
  csrf: string;
  document?: string;
  connections?: string;
  error?: string;
  problems?: { field: string; message: string }[];
  imported?: ImportedView;
}) {
  return (
    <Page title="Import workflows" email={props.email} csrf={props.csrf}>
      <h1>Import workflows</h1>
      <p>
        <a href="/app/workflows">Back to workflows</a>
      </p>
      {props.imported ? <Imported view={props.imported} /> : null}
      <ErrorNote message={props.error} />
      {props.problems?.length ? (
        <ul class="error" aria-label="Problems">
          {props.problems.map((problem) => (
            <li>
              <code>{problem.field}</code>: {problem.message}
            </li>
          ))}
        </ul>
      ) : null}
      <section class="card" aria-labelledby="import-form">
        <h2 id="import-form">A bundle or an n8n export</h2>
        <p>
          Paste the JSON of a workflow bundle (a workflow's "Export") or of an n8n workflow export, or choose the file. The workflows it needs are created with
          it; its connections are your connections of the same platform and name unless you name others.
        </p>
        <form method="post" action="/app/workflows/import" enctype="multipart/form-data">
          <input type="hidden" name="csrf_token" value={props.csrf} />
          <label for="import-document">JSON</label>
          <textarea id="import-document" name="document" rows={14}>
            {props.document ?? ""}
          </textarea>
          <label for="import-file">Or a file</label>
          <input id="import-file" type="file" name="file" accept="application/json,.json" />
          <label for="import-connections">Connections to use (optional, JSON such as {'{"slack": 12}'})</label>
          <input id="import-connections" name="connections" value={props.connections ?? ""} />
          <div class="actions">
            <button type="submit" name="step" value="import">
              Import
            </button>
          </div>
        </form>
      </section>
    </Page>
  );
}

function Imported(props: { view: ImportedView }) {
  return (
    <section class="card" aria-labelledby="imported">
      <h2 id="imported">Imported</h2>
      <p class="notice" role="status">
        {props.view.workflows.length === 1 ? "1 workflow was created." : `${props.view.workflows.length} workflows were created.`}
      </p>
      <ul>
        {props.view.workflows.map((workflow) => (
          <li>
            <a href={`/app/workflows/${workflow.id}`}>{workflow.name}</a>
          </li>
        ))}
      </ul>
      {props.view.warnings.length ? (
        <>
          <h3>Not carried over</h3>
          <ul aria-label="Warnings">
            {props.view.warnings.map((warning) => (
              <li>
                {warning.node ? <strong>{warning.node}: </strong> : null}
                {warning.reason}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
