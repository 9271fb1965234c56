import { and, asc, count, eq, isNull, notExists, sql } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { HubError } from "../core/errors";
import { assertRole, type Role } from "../core/roles";
import { agents, apiKeys, connections, conversations, users, workflows, workspaceMembers } from "../db/schema";
import { auditStatement } from "./audit";
import { memberRole, parseWorkspaceId } from "./resolve";

type Caller = Pick<ServiceContext, "db" | "actor" | "workspace"> & { credential?: ServiceContext["credential"] };

/** A team workspace's account has an address nobody can receive mail at, and no password. */
const workspaceEmail = () => `workspace+${crypto.randomUUID()}@workspaces.invalid`;
const NO_PASSWORD = "!";
const PERSONAL_NAME = "Personal";

export interface WorkspaceView {
  id: number;
  name: string;
  role: Role;
  personal: boolean;
  created_at: string;
}

const notAMember = (id: string | number) => new HubError("not_found", `Workspace ${id} not found, or you are not a member of it.`);

/**
 * The workspace a path names, with the caller's role in it: their own account (owner), a team
 * workspace they belong to, else 404 (a non-member learns nothing, not even that it exists).
 */
export async function workspaceForCaller(ctx: Caller, idText: string | number) {
  const id = parseWorkspaceId(idText);
  if (id === undefined) throw notAMember(String(idText).slice(0, 40));
  // A key bound to a workspace knows no other.
  const bound = ctx.credential?.workspaceId;
  if (bound != null && id !== bound) throw notAMember(id);
  if (id === ctx.actor.id) return { id, role: "owner" as Role, personal: true };
  const role = await memberRole(ctx.db, id, ctx.actor.id);
  if (!role) throw notAMember(id);
  return { id, role: role as Role, personal: false };
}

/** `POST /v1/workspaces`: a team workspace whose owner is the caller, recorded in its trail. */
export async function createWorkspace(ctx: Caller, input: { name: string }): Promise<WorkspaceView> {
  const email = workspaceEmail();
  // The new account's id, read inside the batch: the three writes land together or not at all.
  const newId = sql<number>`(SELECT ${users.id} FROM ${users} WHERE ${users.email} = ${email})`;
  const [[row]] = await ctx.db.batch([
    ctx.db.insert(users).values({ email, name: input.name, passwordHash: NO_PASSWORD, kind: "workspace" }).returning(),
    ctx.db.insert(workspaceMembers).values({ workspaceId: newId, userId: ctx.actor.id, role: "owner" }),
    auditStatement(ctx, {
      workspaceId: newId,
      action: "workspace.created",
      target: { type: "workspace", id: sql`CAST(${newId} AS TEXT)` },
      detail: { name: input.name },
    }),
  ]);
  return present(row!, "owner");
}

const present = (row: { id: number; name: string | null; createdAt: Date; kind: string }, role: Role): WorkspaceView => ({
  id: row.id,
  name: row.kind === "person" ? PERSONAL_NAME : (row.name ?? ""),
  role,
  personal: row.kind === "person",
  created_at: row.createdAt.toISOString(),
});

const accountColumns = { id: users.id, name: users.name, createdAt: users.createdAt, kind: users.kind };

/** `GET /v1/workspaces`: the caller's personal workspace first, then the teams they belong to. */
export async function listWorkspaces(ctx: Caller): Promise<WorkspaceView[]> {
  const [own, teams] = await ctx.db.batch([
    ctx.db.select(accountColumns).from(users).where(eq(users.id, ctx.actor.id)),
    ctx.db
      .select({ ...accountColumns, role: workspaceMembers.role })
      .from(workspaceMembers)
      .innerJoin(users, eq(users.id, workspaceMembers.workspaceId))
      .where(eq(workspaceMembers.userId, ctx.actor.id))
      .orderBy(asc(workspaceMembers.createdAt), asc(users.id)),
  ]);
  const all = [...own.map((row) => present(row, "owner")), ...teams.map((row) => present(row, row.role))];
  const bound = ctx.credential?.workspaceId;
  return bound != null ? all.filter((workspace) => workspace.id === bound) : all;
}

/** `GET /v1/workspaces/{id}`: any member. */
export async function getWorkspace(ctx: Caller, idText: string): Promise<WorkspaceView> {
  const workspace = await workspaceForCaller(ctx, idText);
  const row = await ctx.db.select(accountColumns).from(users).where(eq(users.id, workspace.id)).get();
  if (!row) throw notAMember(workspace.id);
  return present(row, workspace.role);
}

/** `PATCH /v1/workspaces/{id}`: admins rename a team workspace; a personal one is named "Personal". */
export async function updateWorkspace(ctx: Caller, idText: string, patch: { name: string }): Promise<WorkspaceView> {
  const workspace = await workspaceForCaller(ctx, idText);
  assertRole(workspace, "admin");
  if (workspace.personal) throw new HubError("conflict", "A personal workspace keeps its name; create a workspace to name one.");
  const [[row]] = await ctx.db.batch([
    ctx.db.update(users).set({ name: patch.name, updatedAt: new Date() }).where(eq(users.id, workspace.id)).returning(accountColumns),
    auditStatement(ctx, {
      workspaceId: workspace.id,
      action: "workspace.updated",
      target: { type: "workspace", id: workspace.id },
      detail: { name: patch.name },
    }),
  ]);
  return present(row!, workspace.role);
}

/**
 * `DELETE /v1/workspaces/{id}`: the owner deletes a team workspace once it holds no workflows,
 * agents, connections or conversations (what is left, runs and the trail, goes with it).
 */
export async function deleteWorkspace(ctx: Caller, idText: string): Promise<void> {
  const workspace = await workspaceForCaller(ctx, idText);
  assertRole(workspace, "owner");
  if (workspace.personal) throw new HubError("conflict", "A personal workspace is deleted with its account, not on its own.");
  // Emptiness is checked in the delete itself, so nothing created meanwhile is swept away with it.
  const tables = [workflows, agents, connections, conversations] as const;
  const names = ["workflows", "agents", "connections", "conversations"];
  const held = (table: (typeof tables)[number]) => ctx.db.select({ one: sql`1` }).from(table).where(eq(table.userId, workspace.id));
  const owned = (table: (typeof tables)[number]) => ctx.db.select({ n: count() }).from(table).where(eq(table.userId, workspace.id));
  const [deleted, ...counts] = await ctx.db.batch([
    ctx.db
      .delete(users)
      .where(and(eq(users.id, workspace.id), eq(users.kind, "workspace"), ...tables.map((table) => notExists(held(table)))))
      .returning({ id: users.id }),
    owned(workflows),
    owned(agents),
    owned(connections),
    owned(conversations),
  ]);
  if (deleted.length) return;
  const left = counts.map((rows, i) => [names[i], rows[0]?.n ?? 0] as const).filter(([, n]) => n > 0);
  if (!left.length) throw notAMember(workspace.id); // deleted meanwhile
  throw new HubError("conflict", `The workspace is not empty: it still has ${left.map(([what, n]) => `${n} ${what}`).join(", ")}. Delete or move them first.`);
}

/** Keys a person bound to a workspace stop at once when they leave it. */
export const revokeBoundKeys = (ctx: Caller, workspaceId: number, userId: number) =>
  ctx.db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.userId, userId), eq(apiKeys.workspaceId, workspaceId), isNull(apiKeys.revokedAt)));
