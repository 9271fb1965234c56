import { authedRoute, conflictError, createRouter, notFoundError, z } from "../http/router";
import { IntIdParam, Timestamp } from "../http/schemas";
import { PageQuery, pageById, pageOf } from "../http/pagination";
import { createApiKey, listApiKeys, presentApiKey, revokeApiKey } from "./api-keys";
import { ScopeSchema } from "./schemas";
import type { Scope } from "../core/scopes";

const ApiKeySchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    mode: z.enum(["live", "test"]).openapi({ description: "live keys work against production, test keys against sandbox." }),
    prefix: z.string().openapi({ example: "ahk_test_AbC123", description: "The first characters of the key, to recognise it." }),
    scopes: z.array(ScopeSchema),
    workspace_id: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The one workspace the key acts in; null: any the person belongs to (Hub-Workspace header), else the personal one." }),
    created_at: Timestamp,
    last_used_at: Timestamp.nullable(),
    expires_at: Timestamp.nullable(),
  })
  .openapi("ApiKey");

const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({ description: "The secret key. Shown only in this response: store it now." }),
}).openapi("CreatedApiKey");

const createKey = authedRoute(
  "data:write",
  {
    method: "post",
    path: "/auth/api-keys",
    tags: ["API keys"],
    summary: "Create an API key",
    description:
      "The key is returned once, in `key`; only its hash is stored. Its scopes default to, and may not exceed, the calling credential's. Its mode is this deployment's: `ahk_test_` keys on sandbox, `ahk_live_` keys on production.",
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z
              .object({
                name: z.string().trim().min(1).max(100),
                scopes: z.array(ScopeSchema).min(1).optional(),
                expires_at: z.iso.datetime({ offset: true }).optional().openapi({ description: "When the key stops working." }),
                workspace_id: z
                  .number()
                  .int()
                  .positive()
                  .optional()
                  .openapi({ description: "Bind the key to this workspace (the caller must belong to it, else 404): it then acts only there." }),
              })
              .strict(),
          },
        },
      },
    },
    responses: { 201: { description: "Created", content: { "application/json": { schema: CreatedApiKeySchema } } }, ...conflictError },
  },
  { firstPartyOnly: true, role: "person" },
);

const listKeys = authedRoute(
  "data:read",
  {
    method: "get",
    path: "/auth/api-keys",
    tags: ["API keys"],
    summary: "List API keys",
    description: "Active keys of the caller, newest first: prefix and metadata, never the secret. Paginated with `limit` and `cursor`.",
    request: { query: PageQuery },
    responses: { 200: { description: "Keys", content: { "application/json": { schema: pageOf(ApiKeySchema) } } } },
  },
  { firstPartyOnly: true, role: "person" },
);

const deleteKey = authedRoute(
  "data:write",
  {
    method: "delete",
    path: "/auth/api-keys/{id}",
    tags: ["API keys"],
    summary: "Revoke an API key",
    description: "The key stops working at once.",
    request: { params: IntIdParam("id") },
    responses: { 204: { description: "Revoked" }, ...notFoundError },
  },
  { firstPartyOnly: true, role: "person" },
);

export const apiKeyRoutes = createRouter()
  .openapi(createKey, async (c) => {
    const body = c.req.valid("json");
    const { key, secret } = await createApiKey(c.var.ctx, {
      name: body.name,
      scopes: body.scopes as Scope[] | undefined,
      expiresAt: body.expires_at ? new Date(body.expires_at) : null,
      workspaceId: body.workspace_id ?? null,
    });
    c.header("Cache-Control", "no-store");
    return c.json({ ...presentApiKey(key), key: secret }, 201);
  })
  .openapi(listKeys, async (c) => {
    const page = await pageById(c.req.valid("query"), (n, before) => listApiKeys(c.var.ctx, n, before), presentApiKey);
    return c.json(page, 200);
  })
  .openapi(deleteKey, async (c) => {
    await revokeApiKey(c.var.ctx, c.req.valid("param").id);
    return c.body(null, 204);
  });
