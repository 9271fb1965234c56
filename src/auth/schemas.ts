import { z } from "@hono/zod-openapi";
import { ALL_SCOPES } from "../core/scopes";
import { Timestamp } from "../http/schemas";

export const ScopeSchema = z.enum(ALL_SCOPES as [string, ...string[]]).openapi("Scope");

export const UserSchema = z
  .object({
    id: z.number().int(),
    email: z.string(),
    name: z.string().nullable(),
    default_provider: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("User");

export const TokenResponseSchema = z
  .object({
    access_token: z.string().openapi({ description: "JWT, valid for expires_in seconds." }),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().openapi({ example: 3600 }),
    refresh_token: z.string().optional().openapi({ description: "Single use; each use returns a new one." }),
    scope: z.string().openapi({ example: "data:read data:write workflow:execute connections:write" }),
  })
  .openapi("TokenResponse");

export const Email = z.string().trim().max(254).email().openapi({ example: "ada@example.com" });
export const Password = z.string().min(8, "Use at least 8 characters.").max(256).openapi({ example: "correct horse battery" });
