import { eq } from "drizzle-orm";
import { users } from "../db/schema";
import { authedRoute, createRouter, z } from "../http/router";
import { notFound } from "../core/errors";
import { presentUser } from "../auth/accounts";
import { UserSchema } from "../auth/schemas";
import { PROVIDER_IDS } from "../llm/providers";

const MeSchema = UserSchema.extend({
  credential: z.object({
    kind: z.enum(["api_key", "session", "oauth"]),
    scopes: z.array(z.string()),
    client_id: z.string().nullable(),
  }),
}).openapi("Me");

const getMe = authedRoute("data:read", {
  method: "get",
  path: "/me",
  tags: ["Account"],
  summary: "The current user",
  description: "The signed-in user, and what the calling credential may do.",
  responses: { 200: { description: "The current user", content: { "application/json": { schema: MeSchema } } } },
});

const patchMe = authedRoute("data:write", {
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
});

export const meRoutes = createRouter()
  .openapi(getMe, async (c) => {
    const principal = c.get("principal");
    const user = await c.get("db").select().from(users).where(eq(users.id, principal.userId)).get();
    if (!user) throw notFound("User");
    return c.json({ ...presentUser(user), credential: describe(principal) }, 200);
  })
  .openapi(patchMe, async (c) => {
    const principal = c.get("principal");
    const body = c.req.valid("json");
    const [user] = await c
      .get("db")
      .update(users)
      .set({
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.default_provider !== undefined ? { defaultProvider: body.default_provider } : {}),
        updatedAt: new Date(),
      })
      .where(eq(users.id, principal.userId))
      .returning();
    if (!user) throw notFound("User");
    return c.json({ ...presentUser(user), credential: describe(principal) }, 200);
  });

function describe(principal: { kind: "api_key" | "session" | "oauth"; scopes: string[]; clientId: string | null }) {
  return { kind: principal.kind, scopes: principal.scopes, client_id: principal.clientId };
}
