import { authedRoute, conflictError, createRouter, notFoundError, z } from "../http/router";
import { PageQuery, pageById, pageOf } from "../http/pagination";
import { Timestamp } from "../http/schemas";
import { createOAuthApp, deleteOAuthApp, listOAuthApps, presentOAuthApp } from "./oauth-apps";
import { ScopeSchema } from "./schemas";
import type { Scope } from "../core/scopes";

const OAuthAppSchema = z
  .object({
    client_id: z.string(),
    name: z.string(),
    redirect_uris: z.array(z.string()),
    scopes: z.array(ScopeSchema).openapi({ description: "The most this app may be granted." }),
    created_at: Timestamp,
  })
  .openapi("OAuthApp");

const createApp = authedRoute(
  "data:write",
  {
    method: "post",
    path: "/auth/apps",
    tags: ["OAuth apps"],
    summary: "Register an OAuth 2.0 app",
    description:
      "Returns `client_id` and `client_secret`; the secret is shown only in this response. Redirect URIs are matched exactly. The app's scopes may not exceed the calling credential's. A client-credentials token acts for the app's owner within these scopes.",
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z
              .object({
                name: z.string().trim().min(1).max(100),
                redirect_uris: z.array(z.string().max(2000)).max(10).default([]),
                scopes: z.array(ScopeSchema).min(1),
              })
              .strict(),
          },
        },
      },
    },
    responses: {
      201: {
        description: "Registered",
        content: { "application/json": { schema: OAuthAppSchema.extend({ client_secret: z.string() }).openapi("CreatedOAuthApp") } },
      },
      ...conflictError,
    },
  },
  { firstPartyOnly: true, role: "person", unboundOnly: true },
);

const listApps = authedRoute(
  "data:read",
  {
    method: "get",
    path: "/auth/apps",
    tags: ["OAuth apps"],
    summary: "List OAuth apps",
    description: "The caller's apps, newest first, without their secrets. Paginated with `limit` and `cursor`.",
    request: { query: PageQuery },
    responses: { 200: { description: "Apps", content: { "application/json": { schema: pageOf(OAuthAppSchema) } } } },
  },
  { firstPartyOnly: true, role: "person", unboundOnly: true },
);

const deleteApp = authedRoute(
  "data:write",
  {
    method: "delete",
    path: "/auth/apps/{client_id}",
    tags: ["OAuth apps"],
    summary: "Delete an OAuth app",
    description: "Every token issued to the app stops working at once.",
    request: {
      params: z.object({
        client_id: z
          .string()
          .max(100)
          .openapi({ param: { name: "client_id", in: "path" } }),
      }),
    },
    responses: { 204: { description: "Deleted" }, ...notFoundError },
  },
  { firstPartyOnly: true, role: "person", unboundOnly: true },
);

export const oauthAppRoutes = createRouter()
  .openapi(createApp, async (c) => {
    const body = c.req.valid("json");
    const { app, clientSecret } = await createOAuthApp(c.var.ctx, { name: body.name, redirectUris: body.redirect_uris, scopes: body.scopes as Scope[] });
    c.header("Cache-Control", "no-store");
    return c.json({ ...presentOAuthApp(app), client_secret: clientSecret }, 201);
  })
  .openapi(listApps, async (c) => {
    const page = await pageById(c.req.valid("query"), (n, before) => listOAuthApps(c.var.ctx, n, before), presentOAuthApp);
    return c.json(page, 200);
  })
  .openapi(deleteApp, async (c) => {
    await deleteOAuthApp(c.var.ctx, c.req.valid("param").client_id);
    return c.body(null, 204);
  });
