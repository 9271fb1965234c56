import { authedRoute, createRouter, notFoundError, z } from "../http/router";
import { Timestamp } from "../http/schemas";
import { listAuthorizations, revokeAuthorization } from "./authorizations";
import { ScopeSchema } from "./schemas";

const AuthorizationSchema = z
  .object({
    client_id: z.string(),
    name: z.string().openapi({ description: "The app's name, as shown on the consent page." }),
    scopes: z.array(ScopeSchema).openapi({ description: "Everything the person granted the app." }),
    created_at: Timestamp.openapi({ description: "When the app was first approved." }),
    last_used_at: Timestamp.nullable().openapi({ description: "When the app last obtained tokens (approval or refresh)." }),
  })
  .openapi("Authorization");

const ClientIdParam = z.object({
  client_id: z
    .string()
    .max(100)
    .openapi({ param: { name: "client_id", in: "path" } }),
});

const list = authedRoute(
  "data:read",
  {
    method: "get",
    path: "/auth/authorizations",
    tags: ["OAuth apps"],
    summary: "List the OAuth apps you approved",
    description: "Apps you approved on the consent page whose access you have not withdrawn, newest first.",
    responses: { 200: { description: "Approved apps", content: { "application/json": { schema: z.object({ data: z.array(AuthorizationSchema) }) } } } },
  },
  { firstPartyOnly: true, role: "person", unboundOnly: true },
);

const revoke = authedRoute(
  "data:write",
  {
    method: "delete",
    path: "/auth/authorizations/{client_id}",
    tags: ["OAuth apps"],
    summary: "Revoke an app's access",
    description:
      "Withdraws every authorization you gave the app: its access and refresh tokens stop working at once, and agents it deployed stop. The app can ask again through the consent page.",
    request: { params: ClientIdParam },
    responses: { 204: { description: "Revoked" }, ...notFoundError },
  },
  { firstPartyOnly: true, role: "person", unboundOnly: true },
);

export const authorizationRoutes = createRouter()
  .openapi(list, async (c) => c.json({ data: await listAuthorizations(c.var.ctx) }, 200))
  .openapi(revoke, async (c) => {
    await revokeAuthorization(c.var.ctx, c.req.valid("param").client_id);
    return c.body(null, 204);
  });
