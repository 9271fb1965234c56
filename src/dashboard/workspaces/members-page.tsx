import { GRANTABLE_ROLES, type Role, roleAtLeast } from "../../core/roles";
import type { MemberView } from "../../workspaces/members";
import type { WorkspaceView } from "../../workspaces/service";
import { DataTable, PostButton, formatTime } from "../common";
import { ErrorNote, Page } from "../layout";

export interface MembersPageProps {
  email: string;
  csrf: string;
  /** The workspace, with the signed-in person's role in it. */
  workspace: WorkspaceView;
  members: MemberView[];
  me: number;
  error?: string;
  done?: string;
  /** What the invite form keeps after a refusal. */
  invite?: { email: string; role: string };
}

const MEMBERS_STYLE = `
.role-form{display:flex;flex-wrap:wrap;gap:4px 8px;align-items:center}
.role-form select{width:auto}
`;

/**
 * `/app/workspaces/{id}/members`: who belongs to the workspace. Owners and admins invite, change
 * roles and remove; the owner hands the workspace over; any member but the owner leaves. The
 * services decide; the page only leaves out the buttons the person's role cannot use.
 */
export function MembersPage(props: MembersPageProps) {
  const { workspace } = props;
  const action = `/app/workspaces/${workspace.id}/members`;
  const manages = !workspace.personal && roleAtLeast(workspace.role, "admin");
  return (
    <Page title={`Members of ${workspace.name}`} email={props.email} csrf={props.csrf} style={MEMBERS_STYLE}>
      <h1>Members of {workspace.name}</h1>
      <p>
        You are {workspace.role === "admin" || workspace.role === "owner" ? "an" : "a"} {workspace.role} here. ·{" "}
        <a href={`/app/workspaces/${workspace.id}/audit`}>Audit trail</a> · <a href="/app/workspaces">All workspaces</a>
      </p>
      {props.done ? (
        <p class="notice" role="status">
          {props.done}
        </p>
      ) : null}
      <ErrorNote message={props.error} />
      {workspace.personal ? (
        <p>
          Your personal workspace is yours alone. To share workflows, agents and connections, <a href="/app/workspaces">create a workspace</a> and invite people
          to it.
        </p>
      ) : null}
      <section class="card" aria-labelledby="member-list">
        <h2 id="member-list">Members</h2>
        <DataTable
          rows={props.members}
          columns={[
            { label: "Email", cell: (member) => (member.name ? `${member.email} (${member.name})` : member.email) },
            { label: "Role", cell: (member) => member.role },
            { label: "Joined", cell: (member) => formatTime(member.joined_at) },
            { label: "Actions", hideLabel: true, cell: (member) => <MemberActions {...props} member={member} action={action} manages={manages} /> },
          ]}
        />
      </section>
      {manages ? <InviteForm action={action} csrf={props.csrf} invite={props.invite} /> : null}
    </Page>
  );
}

function MemberActions(props: MembersPageProps & { member: MemberView; action: string; manages: boolean }) {
  const { member, workspace } = props;
  if (workspace.personal || member.role === "owner") return null;
  const self = member.user_id === props.me;
  // The owner may also hand the workspace over; nobody is given "owner" beside them.
  const choices: Role[] = workspace.role === "owner" ? [...GRANTABLE_ROLES, "owner"] : [...GRANTABLE_ROLES];
  return (
    <div class="actions">
      {props.manages && !self ? (
        <form class="role-form" method="post" action={props.action}>
          <input type="hidden" name="csrf_token" value={props.csrf} />
          <input type="hidden" name="user_id" value={String(member.user_id)} />
          <label class="visually-hidden" for={`role-${member.user_id}`}>{`Role of ${member.email}`}</label>
          <select id={`role-${member.user_id}`} name="role">
            {choices.map((role) => (
              <option value={role} selected={role === member.role}>
                {role === "owner" ? "owner (hand over)" : role}
              </option>
            ))}
          </select>
          <button class="secondary" type="submit" name="step" value="role" aria-label={`Change the role of ${member.email}`}>
            Change role
          </button>
        </form>
      ) : null}
      {props.manages && !self ? (
        <PostButton
          action={props.action}
          csrf={props.csrf}
          step="remove"
          hidden={{ user_id: String(member.user_id) }}
          label="Remove"
          ariaLabel={`Remove ${member.email}`}
          className="danger"
        />
      ) : null}
      {self ? <PostButton action={props.action} csrf={props.csrf} step="leave" label="Leave workspace" className="danger" /> : null}
    </div>
  );
}

function InviteForm(props: { action: string; csrf: string; invite?: { email: string; role: string } }) {
  return (
    <section class="card" aria-labelledby="invite-member">
      <h2 id="invite-member">Add a member</h2>
      <p class="hint">The person needs an account on this hub; they see the workspace in their switcher at once.</p>
      <form method="post" action={props.action}>
        <input type="hidden" name="csrf_token" value={props.csrf} />
        <label for="invite-email">Email</label>
        <input id="invite-email" type="email" name="email" required maxlength={254} value={props.invite?.email} />
        <label for="invite-role">Role</label>
        <select id="invite-role" name="role">
          {GRANTABLE_ROLES.map((role) => (
            <option value={role} selected={role === (props.invite?.role ?? "editor")}>
              {role}
            </option>
          ))}
        </select>
        <button type="submit" name="step" value="invite">
          Add member
        </button>
      </form>
    </section>
  );
}
