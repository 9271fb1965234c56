import { and, asc, eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { HubError, validationFailed } from "../core/errors";
import { assertRole, type Role } from "../core/roles";
import { users, workspaceMembers } from "../db/schema";
import { auditStatement } from "./audit";
import { handOverWork } from "./hand-over";
import { memberRole } from "./resolve";
import { revokeBoundKeys, workspaceForCaller } from "./service";

type Caller = Pick<ServiceContext, "db" | "actor" | "workspace" | "credential">;

export interface MemberView {
  user_id: number;
  email: string;
  name: string | null;
  role: Role;
  joined_at: string;
}

const personal = () => new HubError("conflict", "A personal workspace has one member, its owner; create a workspace (POST /v1/workspaces) to share work.");

const memberColumns = { userId: users.id, email: users.email, name: users.name, role: workspaceMembers.role, joinedAt: workspaceMembers.createdAt };

const present = (row: { userId: number; email: string; name: string | null; role: Role; joinedAt: Date }): MemberView => ({
  user_id: row.userId,
  email: row.email,
  name: row.name,
  role: row.role,
  joined_at: row.joinedAt.toISOString(),
});

/** `GET /v1/workspaces/{id}/members`: any member sees who else is. */
export async function listMembers(ctx: Caller, idText: string): Promise<MemberView[]> {
  const workspace = await workspaceForCaller(ctx, idText);
  if (workspace.personal) {
    const me = await ctx.db.select().from(users).where(eq(users.id, workspace.id)).get();
    return me ? [{ user_id: me.id, email: me.email, name: me.name, role: "owner", joined_at: me.createdAt.toISOString() }] : [];
  }
  const rows = await ctx.db
    .select(memberColumns)
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(eq(workspaceMembers.workspaceId, workspace.id))
    .orderBy(asc(workspaceMembers.createdAt), asc(users.id))
    .all();
  return rows.map(present);
}

/** `POST /v1/workspaces/{id}/members`: owners and admins add a person who has an account. */
export async function addMember(ctx: Caller, idText: string, input: { email: string; role: Exclude<Role, "owner"> }): Promise<MemberView> {
  const workspace = await workspaceForCaller(ctx, idText);
  assertRole(workspace, "admin");
  if (workspace.personal) throw personal();
  const email = input.email.trim().toLowerCase();
  const person = await ctx.db
    .select()
    .from(users)
    .where(and(eq(users.email, email), eq(users.kind, "person")))
    .get();
  if (!person) {
    throw validationFailed(
      [{ location: "body", field: "email", message: "No account has this email; the person must register first." }],
      "Only a person with an account can be added.",
    );
  }
  if (await memberRole(ctx.db, workspace.id, person.id)) throw alreadyMember(person.email);
  const added = ctx.db.insert(workspaceMembers).values({ workspaceId: workspace.id, userId: person.id, role: input.role }).returning();
  const audit = auditStatement(ctx, {
    workspaceId: workspace.id,
    action: "member.added",
    target: { type: "member", id: person.id },
    detail: { email: person.email, role: input.role },
  });
  // Two admins adding the same person at once: the second batch fails on the key, whole.
  const [[row]] = await ctx.db.batch([added, audit]).catch((error: unknown) => {
    if (/UNIQUE|PRIMARY KEY/i.test(String(error))) throw alreadyMember(person.email);
    throw error;
  });
  return present({ userId: person.id, email: person.email, name: person.name, role: input.role, joinedAt: row!.createdAt });
}

const alreadyMember = (email: string) => new HubError("conflict", `${email} is already a member of this workspace.`);

/** A member of a team workspace other than the caller's view of themselves, or 404. */
async function memberOf(ctx: Caller, workspaceId: number, userIdText: string) {
  const userId = Number(userIdText);
  const row = Number.isSafeInteger(userId)
    ? await ctx.db
        .select(memberColumns)
        .from(workspaceMembers)
        .innerJoin(users, eq(users.id, workspaceMembers.userId))
        .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
        .get()
    : undefined;
  if (!row) throw new HubError("not_found", `No member ${userIdText.slice(0, 40)} in this workspace.`);
  return row;
}

/**
 * `PATCH /v1/workspaces/{id}/members/{user_id}`: owners and admins change a role. Only the owner
 * hands the workspace over (role "owner"), becoming an admin, so there is always one owner; the
 * owner's own role changes only that way.
 */
export async function changeRole(ctx: Caller, idText: string, userIdText: string, role: Role): Promise<MemberView> {
  const workspace = await workspaceForCaller(ctx, idText);
  assertRole(workspace, "admin");
  if (workspace.personal) throw personal();
  const member = await memberOf(ctx, workspace.id, userIdText);
  if (member.role === role) return present(member);
  const audit = auditStatement(ctx, {
    workspaceId: workspace.id,
    action: "member.role_changed",
    target: { type: "member", id: member.userId },
    detail: { email: member.email, from: member.role, to: role },
  });
  const setRole = (userId: number, to: Role) =>
    ctx.db
      .update(workspaceMembers)
      .set({ role: to })
      .where(and(eq(workspaceMembers.workspaceId, workspace.id), eq(workspaceMembers.userId, userId)));
  if (role === "owner") {
    assertRole(workspace, "owner");
    await ctx.db.batch([setRole(member.userId, "owner"), setRole(ctx.actor.id, "admin"), audit]);
  } else {
    if (member.role === "owner")
      throw new HubError("conflict", 'A workspace always has one owner: the owner hands it over (role "owner") to another member first.');
    await ctx.db.batch([setRole(member.userId, role), audit]);
  }
  return present({ ...member, role });
}

/**
 * `DELETE /v1/workspaces/{id}/members/{user_id}`: owners and admins remove a member; any member
 * may leave. The owner leaves only after handing over. Keys the member bound to the workspace are
 * revoked in the same batch; what they built stays, owned by the workspace (their agents keep
 * running: work is the workspace's, not its author's).
 */
export async function removeMember(ctx: Caller, idText: string, userIdText: string): Promise<void> {
  const workspace = await workspaceForCaller(ctx, idText);
  if (workspace.personal) throw personal();
  const member = await memberOf(ctx, workspace.id, userIdText);
  const leaving = member.userId === ctx.actor.id;
  if (!leaving) assertRole(workspace, "admin");
  if (member.role === "owner")
    throw new HubError("conflict", 'The owner cannot leave or be removed: hand the workspace over (PATCH the member\'s role to "owner") first.');
  await ctx.db.batch([
    ctx.db.delete(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, workspace.id), eq(workspaceMembers.userId, member.userId))),
    ...handOverWork(ctx.db, workspace.id, member.userId),
    revokeBoundKeys(ctx, workspace.id, member.userId),
    auditStatement(ctx, {
      workspaceId: workspace.id,
      action: "member.removed",
      target: { type: "member", id: member.userId },
      detail: { email: member.email, role: member.role, left: leaving },
    }),
  ]);
}
