import type { WorkspaceView } from "../../workspaces/service";
import { DataTable, PostButton, formatTime } from "../common";
import { ErrorNote, Page } from "../layout";

/** `/app/workspaces`: every workspace the person belongs to, the one shown marked, and a form for a new one. */
export function WorkspacesPage(props: { email: string; csrf: string; workspaces: WorkspaceView[]; current: number; error?: string; name?: string }) {
  return (
    <Page title="Workspaces" email={props.email} csrf={props.csrf}>
      <h1>Workspaces</h1>
      <p>
        Everything you make lives in a workspace: your personal one, or one you share with a team. The dashboard shows one workspace at a time; switch here or
        in the menu at the top.
      </p>
      <ErrorNote message={props.error} />
      <section class="card" aria-labelledby="your-workspaces">
        <h2 id="your-workspaces">Your workspaces</h2>
        <DataTable
          rows={props.workspaces}
          columns={[
            {
              label: "Name",
              cell: (workspace) => (
                <>
                  {workspace.personal ? "Personal" : workspace.name}
                  {workspace.id === props.current ? <strong> (shown now)</strong> : null}
                </>
              ),
            },
            { label: "Your role", cell: (workspace) => workspace.role },
            { label: "Created", cell: (workspace) => formatTime(workspace.created_at) },
            {
              label: "Actions",
              hideLabel: true,
              cell: (workspace) => (
                <div class="actions">
                  {workspace.id === props.current ? null : (
                    <PostButton
                      action="/app/workspace"
                      csrf={props.csrf}
                      step="switch"
                      hidden={{ workspace_id: String(workspace.id), back: "/app/workspaces" }}
                      label="Switch"
                      ariaLabel={`Switch to ${workspace.personal ? "your personal workspace" : workspace.name}`}
                      className="secondary"
                    />
                  )}
                  <a href={`/app/workspaces/${workspace.id}/members`}>Members</a>
                  <a href={`/app/workspaces/${workspace.id}/audit`}>Audit trail</a>
                </div>
              ),
            },
          ]}
        />
      </section>
      <section class="card" aria-labelledby="new-workspace">
        <h2 id="new-workspace">Create a workspace</h2>
        <p class="hint">You become its owner; add members on its members page.</p>
        <form method="post" action="/app/workspaces">
          <input type="hidden" name="csrf_token" value={props.csrf} />
          <label for="workspace-name">Name</label>
          <input id="workspace-name" type="text" name="name" required maxlength={100} value={props.name} placeholder="Marketing" />
          <button type="submit" name="step" value="create">
            Create workspace
          </button>
        </form>
      </section>
    </Page>
  );
}
