import { z } from "../http/router";
import { GRANTABLE_ROLES, ROLES } from "../core/roles";

export const WorkspaceSchema = z
  .object({
    id: z.number().int().describe("Send it as the `Hub-Workspace` header to act in this workspace."),
    name: z.string(),
    role: z.enum(ROLES).describe("The caller's role here."),
    personal: z.boolean().describe("The caller's own account, where everything they made before teams lives."),
    created_at: z.string(),
  })
  .openapi("Workspace");

export const WorkspaceChange = z.object({ name: z.string().trim().min(1).max(100) }).strict();

export const MemberSchema = z
  .object({ user_id: z.number().int(), email: z.string(), name: z.string().nullable(), role: z.enum(ROLES), joined_at: z.string() })
  .openapi("WorkspaceMember");

export const MemberInvite = z.object({ email: z.string().trim().email().max(254), role: z.enum(GRANTABLE_ROLES) }).strict();

export const RoleChange = z
  .object({ role: z.enum(ROLES).describe('"owner" hands the workspace over (the owner only); the former owner becomes an admin.') })
  .strict();

export const AuditEntrySchema = z
  .object({
    id: z.number().int(),
    at: z.string(),
    actor: z.object({ user_id: z.number().int().nullable(), email: z.string().nullable() }),
    action: z
      .string()
      .describe(
        "workspace.created|updated, member.added|role_changed|removed, workflow|agent|connection.created|updated|deleted, approval.decided, api_key.created|revoked",
      ),
    target: z.object({ type: z.string(), id: z.string() }),
    detail: z.record(z.string(), z.unknown()),
  })
  .openapi("AuditEntry");

export const AuditPage = z.object({ data: z.array(AuditEntrySchema), next_cursor: z.string().nullable() }).openapi("AuditPage");

export const WorkspaceParams = z.object({ workspace_id: z.string().max(40) });
export const MemberParams = WorkspaceParams.extend({ user_id: z.string().max(40) });
