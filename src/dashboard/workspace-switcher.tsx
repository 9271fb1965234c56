import { type Child, createContext, useContext } from "hono/jsx";
import type { ServiceContext } from "../core/context";
import { roleAtLeast } from "../core/roles";
import { listWorkspaces, type WorkspaceView } from "../workspaces/service";

/**
 * The signed-in person's context while a page renders, provided by `page()` (kit.tsx), so the
 * layout shows the workspace switcher on every signed-in page without each page passing it on.
 */
export interface PageWorkspace {
  ctx: ServiceContext;
  /** The page's path: after a switch the person returns to the same section. */
  path: string;
}

export const PageWorkspaceContext = createContext<PageWorkspace | undefined>(undefined);

export const SWITCHER_STYLE = `
.workspace{display:flex;flex-wrap:wrap;gap:4px 12px;align-items:center}
.workspace form{display:flex;gap:4px;align-items:center}
.workspace label{display:inline;margin:0;font-weight:400}
header .workspace select{width:auto;max-width:200px;padding:4px;font-size:14px}
`;

const labelOf = (workspace: WorkspaceView) => (workspace.personal ? "Personal" : `${workspace.name} (${workspace.role})`);

/** The header's workspace menu on a signed-in page; a page drawn outside `page()` has none. */
export function WorkspaceSwitcher(props: { csrf?: string }) {
  const shown = useContext(PageWorkspaceContext);
  return shown ? <SwitcherMenu shown={shown} csrf={props.csrf} /> : null;
}

/** The person's workspaces (the current one selected), its members and all workspaces. */
async function SwitcherMenu(props: { shown: PageWorkspace; csrf?: string }) {
  const { shown } = props;
  const current = shown.ctx.workspace.id;
  const workspaces = await listWorkspaces(shown.ctx);
  return (
    <div class="workspace">
      <form method="post" action="/app/workspace">
        <input type="hidden" name="csrf_token" value={props.csrf} />
        <input type="hidden" name="back" value={shown.path} />
        <label for="workspace-choice">Workspace</label>
        <select id="workspace-choice" name="workspace_id">
          {workspaces.map((workspace) => (
            <option value={String(workspace.id)} selected={workspace.id === current}>
              {labelOf(workspace)}
            </option>
          ))}
        </select>
        <button type="submit" name="step" value="switch">
          Switch
        </button>
      </form>
      <a href={`/app/workspaces/${current}/members`}>Members</a>
      <a href="/app/workspaces">All workspaces</a>
    </div>
  );
}

const canEdit = (shown: PageWorkspace | undefined) => !shown || roleAtLeast(shown.ctx.workspace.role, "editor");

/** What only editors may use (forms that change things): a viewer sees nothing of it. */
export function EditorsOnly(props: { children: Child }) {
  // biome-ignore lint/complexity/noUselessFragments: the children may be several elements; a component returns one node
  return canEdit(useContext(PageWorkspaceContext)) ? <>{props.children}</> : null;
}

/** At the top of every page a viewer sees: why there is nothing to click. */
export function ViewerNote() {
  const shown = useContext(PageWorkspaceContext);
  if (canEdit(shown)) return null;
  return (
    <p class="notice" role="note">
      You are a viewer in this workspace: you can see its workflows, runs, agents and connections, and change none of them (your own keys and apps stay yours to
      manage). An admin can change your role on the <a href={`/app/workspaces/${shown!.ctx.workspace.id}/members`}>members page</a>.
    </p>
  );
}
