import { authedRoute, createRouter, z } from "../http/router";
import { describeMe, updateMe } from "./service";
import { UserSchema } from "../auth/schemas";
import { PROVIDER_IDS } from "../llm/providers";

const MeSchema = UserSchema.extend({
  credential: z.object({
    kind: z.enum(["api_key", "session", "oauth"]),
    scopes: z.array(z.string()),
    client_id: z.string().nullable(),
  }),
  workspace: z
    .object({ id: z.number().int(), role: z.enum(["owner", "admin", "editor", "viewer"]), personal: z.boolean() })
    .describe("The workspace this request acted in (Hub-Workspace header, else the credential's, else the personal one), and the caller's role there."),
}).openapi("Me");

const getMe = authedRoute(
  "data:read",
  {
    method: "get",
    path: "/me",
    tags: ["Account"],
    summary: "The current user",
    description: "The signed-in user, and what the calling credential may do.",
    responses: { 200: { description: "The current user", content: { "application/json": { schema: MeSchema } } } },
  },
  { role: "person" },
);

const patchMe = authedRoute(
  "data:write",
  {
    method: "patch",
    path: "/me",
    tags: ["Account"],
    summary: "Update the current user",
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z
              .object({
                name: z.string().trim().min(1).max(100).nullable().optional(),
                default_provider: z.enum(PROVIDER_IDS).nullable().optional(),
              })
              .strict(),
          },
        },
      },
    },
    responses: { 200: { description: "Updated", content: { "application/json": { schema: MeSchema } } } },
  },
  { role: "person" },
);

export const meRoutes = createRouter()
  .openapi(getMe, async (c) => c.json(await describeMe(c.var.ctx), 200))
  .openapi(patchMe, async (c) => c.json(await updateMe(c.var.ctx, c.req.valid("json")), 200));
