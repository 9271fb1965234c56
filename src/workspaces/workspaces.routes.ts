import { authedRoute, conflictError, createRouter, notFoundError, z } from "../http/router";
import { readAudit } from "./audit";
import { addMember, changeRole, listMembers, removeMember } from "./members";
import { AuditPage, MemberInvite, MemberParams, MemberSchema, RoleChange, WorkspaceChange, WorkspaceParams, WorkspaceSchema } from "./schemas";
import { createWorkspace, deleteWorkspace, getWorkspace, listWorkspaces, updateWorkspace, workspaceForCaller } from "./service";

// These operations name their workspace in the path; who may do what is checked against the
// caller's role there (service.ts, members.ts), not against the Hub-Workspace header.
const person = { role: "person" } as const;
// A key bound to a workspace reaches no other: it creates none (and sees only its own, service.ts).
const tags = ["Workspaces"];
const json = <T>(schema: T) => ({ "application/json": { schema } });

const create = authedRoute(
  "data:write",
  {
    method: "post",
    path: "/workspaces",
    tags,
    summary: "Create a workspace",
    description: "A workspace a team shares, with the caller as its owner. Everything a person made before lives in their personal workspace.",
    request: { body: { required: true, content: json(WorkspaceChange) } },
    responses: { 201: { description: "Created", content: json(WorkspaceSchema) } },
  },
  { ...person, unboundOnly: true },
);

const list = authedRoute(
  "data:read",
  {
    method: "get",
    path: "/workspaces",
    tags,
    summary: "The caller's workspaces",
    description: "The personal workspace first, then each team workspace with the caller's role.",
    responses: { 200: { description: "Workspaces", content: json(z.object({ data: z.array(WorkspaceSchema) })) } },
  },
  person,
);

const read = authedRoute(
  "data:read",
  {
    method: "get",
    path: "/workspaces/{workspace_id}",
    tags,
    summary: "A workspace",
    request: { params: WorkspaceParams },
    responses: { 200: { description: "The workspace", content: json(WorkspaceSchema) }, ...notFoundError },
  },
  person,
);

const update = authedRoute(
  "data:write",
  {
    method: "patch",
    path: "/workspaces/{workspace_id}",
    tags,
    summary: "Rename a workspace",
    description: "Owners and admins.",
    request: { params: WorkspaceParams, body: { required: true, content: json(WorkspaceChange) } },
    responses: { 200: { description: "The workspace", content: json(WorkspaceSchema) }, ...notFoundError, ...conflictError },
  },
  person,
);

const remove = authedRoute(
  "data:write",
  {
    method: "delete",
    path: "/workspaces/{workspace_id}",
    tags,
    summary: "Delete a workspace",
    description:
      "The owner only, and only when it has no workflows, agents, connections or conversations left (409 says what is left). A personal workspace goes with its account.",
    request: { params: WorkspaceParams },
    responses: { 204: { description: "Deleted" }, ...notFoundError, ...conflictError },
  },
  person,
);

const members = authedRoute(
  "data:read",
  {
    method: "get",
    path: "/workspaces/{workspace_id}/members",
    tags,
    summary: "Members",
    request: { params: WorkspaceParams },
    responses: { 200: { description: "Members", content: json(z.object({ data: z.array(MemberSchema) })) }, ...notFoundError },
  },
  person,
);

const invite = authedRoute(
  "data:write",
  {
    method: "post",
    path: "/workspaces/{workspace_id}/members",
    tags,
    summary: "Add a member",
    description: "Owners and admins add a person who has an account (else 422) as admin, editor or viewer.",
    request: { params: WorkspaceParams, body: { required: true, content: json(MemberInvite) } },
    responses: { 201: { description: "Added", content: json(MemberSchema) }, ...notFoundError, ...conflictError },
  },
  person,
);

const changeMember = authedRoute(
  "data:write",
  {
    method: "patch",
    path: "/workspaces/{workspace_id}/members/{user_id}",
    tags,
    summary: "Change a member's role",
    description: 'Owners and admins. Only the owner gives "owner", handing the workspace over and becoming an admin: there is always one owner.',
    request: { params: MemberParams, body: { required: true, content: json(RoleChange) } },
    responses: { 200: { description: "The member", content: json(MemberSchema) }, ...notFoundError, ...conflictError },
  },
  person,
);

const removeOne = authedRoute(
  "data:write",
  {
    method: "delete",
    path: "/workspaces/{workspace_id}/members/{user_id}",
    tags,
    summary: "Remove a member, or leave",
    description:
      "Owners and admins remove a member; anyone may remove themselves. Their access ends at once (keys bound to the workspace are revoked); what they built stays with the workspace and their agents keep running. The owner hands over before leaving.",
    request: { params: MemberParams },
    responses: { 204: { description: "Removed" }, ...notFoundError, ...conflictError },
  },
  person,
);

const audit = authedRoute(
  "data:read",
  {
    method: "get",
    path: "/workspaces/{workspace_id}/audit",
    tags,
    summary: "The workspace's audit trail",
    description:
      "Who did what, newest first, 50 at a time: membership and role changes; creating, changing and deleting workflows, agents and connections; approval decisions; key changes. Any member may read it.",
    request: {
      params: WorkspaceParams,
      query: z.object({
        cursor: z
          .string()
          .regex(/^[0-9]{1,16}$/)
          .optional(),
      }),
    },
    responses: { 200: { description: "A page of the trail", content: json(AuditPage) }, ...notFoundError },
  },
  person,
);

export const workspaceRoutes = createRouter()
  .openapi(create, async (c) => c.json(await createWorkspace(c.var.ctx, c.req.valid("json")), 201))
  .openapi(list, async (c) => c.json({ data: await listWorkspaces(c.var.ctx) }, 200))
  .openapi(read, async (c) => c.json(await getWorkspace(c.var.ctx, c.req.valid("param").workspace_id), 200))
  .openapi(update, async (c) => c.json(await updateWorkspace(c.var.ctx, c.req.valid("param").workspace_id, c.req.valid("json")), 200))
  .openapi(remove, async (c) => {
    await deleteWorkspace(c.var.ctx, c.req.valid("param").workspace_id);
    return c.body(null, 204);
  })
  .openapi(members, async (c) => c.json({ data: await listMembers(c.var.ctx, c.req.valid("param").workspace_id) }, 200))
  .openapi(invite, async (c) => c.json(await addMember(c.var.ctx, c.req.valid("param").workspace_id, c.req.valid("json")), 201))
  .openapi(changeMember, async (c) => {
    const { workspace_id, user_id } = c.req.valid("param");
    return c.json(await changeRole(c.var.ctx, workspace_id, user_id, c.req.valid("json").role), 200);
  })
  .openapi(removeOne, async (c) => {
    const { workspace_id, user_id } = c.req.valid("param");
    await removeMember(c.var.ctx, workspace_id, user_id);
    return c.body(null, 204);
  })
  .openapi(audit, async (c) => {
    const workspace = await workspaceForCaller(c.var.ctx, c.req.valid("param").workspace_id);
    const cursor = c.req.valid("query").cursor;
    return c.json(await readAudit(c.var.ctx.db, workspace.id, cursor ? Number(cursor) : undefined), 200);
  });
