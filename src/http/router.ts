import { OpenAPIHono, createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import type { Hook } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env";
import { validationFailed, type FieldError } from "../core/errors";
import { ProblemSchema } from "./schemas";
import { requireFirstParty, requireScope, requireUnbound } from "./require-scope";
import type { Scope } from "../core/scopes";
import { roleForScopes, type Role } from "../core/roles";

const LOCATIONS: Record<string, string> = { json: "body", form: "form", query: "query", param: "path", header: "header" };

/** Every validation failure, wherever it happens, becomes a 422 problem listing each field. */
const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (result.success) return;
  const location = LOCATIONS[result.target] ?? result.target;
  const errors: FieldError[] = result.error.issues.map((issue) => ({
    location,
    field: issue.path.map(String).join("."),
    message: issue.message,
  }));
  throw validationFailed(errors);
};

/** A router for one feature; all routers share the validation hook. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}

const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ProblemSchema } },
});

/** Error responses every authenticated operation may give. */
export const commonErrors = {
  400: problem("Malformed JSON or request."),
  401: problem("Missing, invalid, expired or revoked credential."),
  403: problem(
    "The credential lacks the scope this operation needs (`insufficient_scope`), or the caller's role in the workspace is too weak for it (`insufficient_role`).",
  ),
  413: problem("Request body larger than 1 MiB."),
  415: problem("Request body is not JSON."),
  422: problem("A field failed validation; `errors` lists each one."),
  429: problem("Rate limit exceeded; see Retry-After."),
  500: problem("Our fault; quote the request_id."),
} as const;

/** Error responses of operations that need no credential (no 401/403). */
export const publicErrors = {
  400: commonErrors[400],
  413: commonErrors[413],
  415: commonErrors[415],
  422: commonErrors[422],
  429: commonErrors[429],
  500: commonErrors[500],
} as const;

export const notFoundError = { 404: problem("Unknown, or belongs to another user.") } as const;
export const conflictError = { 409: problem("Conflicts with an existing resource.") } as const;

export interface RouteAccess {
  /** Only with a login token or an API key, never a token an OAuth app holds. */
  firstPartyOnly?: boolean;
  /**
   * The role the caller needs in the workspace the request acts in (DESIGN §6.4); by default the
   * one its scopes imply (reading: viewer; anything else: editor). `person`: the operation is
   * about the caller's own account (keys, profile, workspaces they belong to), in any workspace.
   */
  role?: Role | "person";
  /** Not with an API key bound to a workspace: the operation reaches beyond it. */
  unboundOnly?: boolean;
}

/**
 * One authenticated operation: its OpenAPI description, its scope and role check and its error
 * responses come from this single definition, so the document and the behaviour agree.
 */
export function authedRoute<const R extends Omit<RouteConfig, "security" | "middleware">>(
  scope: Scope | readonly Scope[],
  config: R,
  options: RouteAccess = {},
) {
  const scopes: readonly Scope[] = typeof scope === "string" ? [scope] : scope;
  const role = options.role === "person" ? undefined : (options.role ?? roleForScopes(scopes));
  const note =
    (options.firstPartyOnly ? " Only with a login token or an API key, not with a token issued to an OAuth app." : "") +
    (options.unboundOnly ? " Not with an API key bound to a workspace." : "");
  const roleNote = role
    ? ` Acts in the workspace of the \`Hub-Workspace\` header (else the credential's, else the personal one) and needs the ${role} role there.`
    : "";
  const needs = scopes.map((s) => `\`${s}\``).join(" and ");
  const check = requireScope(scopes, role);
  return createRoute({
    ...config,
    security: [{ bearerAuth: [...scopes] }],
    // Machine-readable for clients and the contract test: the workspace role the call needs.
    "x-hub-role": role ?? "person",
    middleware: [check, ...(options.firstPartyOnly ? [requireFirstParty] : []), ...(options.unboundOnly ? [requireUnbound] : [])] as [typeof check],
    responses: { ...commonErrors, ...config.responses },
    description: `${config.description ?? ""}\n\nRequires scope${scopes.length > 1 ? "s" : ""} ${needs}.${note}${roleNote}`.trim(),
  });
}

export { createRoute, z };
