import { z } from "@hono/zod-openapi";
import type { ToolContext } from "../../core/tool-context";

export type PlatformCategory = "mcp" | "messaging" | "email" | "crm" | "marketing" | "database" | "productivity" | "developer" | "ai";
export type AuthKind = "bearer_token" | "bot_token" | "api_key" | "basic" | "signing_secret" | "optional_bearer" | "none";

/** What a connection's status becomes when the platform refuses its credentials. */
export type AuthFailure = "error" | "expired";

/** A failed platform call. `authFailure` says whether the connection itself is at fault. */
export class PlatformError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly authFailure?: AuthFailure,
  ) {
    super(message);
  }
}

export interface PlatformRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Appended to the connection's base URL. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A connection's decrypted config plus a request function bound to it. */
export interface PlatformClient<C = Record<string, any>> {
  config: C;
  request<T = any>(request: PlatformRequest): Promise<T>;
}

export interface PlatformTool<C = any, S extends z.ZodType = z.ZodType> {
  action: string;
  title: string;
  description: string;
  input: S;
  run(client: PlatformClient<C>, args: z.infer<S>, ctx: ToolContext): Promise<unknown>;
}

export interface Platform<C = any> {
  id: string;
  name: string;
  description: string;
  category: PlatformCategory;
  authKind: AuthKind;
  /** Validates a connection's config; secret fields are listed in `secretFields`. */
  config: z.ZodType<C>;
  secretFields: readonly string[];
  /** The public API root; a config `base_url` overrides it (tests point it at local fakes). */
  defaultBaseUrl?: string;
  /** Computes the base URL when it depends on the config (it must honour `base_url` itself). */
  baseUrl?(config: C): string;
  authHeaders?(config: C): Record<string, string>;
  /** Reads a platform-specific failure out of a response (for APIs that answer 200 with ok:false). */
  inspect?(status: number, body: any): PlatformError | undefined;
  /** The cheapest authenticated call, used by "test connection"; returns what it learned. */
  test?(client: PlatformClient<C>): Promise<string>;
  tools: PlatformTool<C, any>[];
}

export function definePlatform<C>(platform: Platform<C>): Platform<C> {
  return platform;
}

export function platformTool<C, S extends z.ZodType>(tool: PlatformTool<C, S>): PlatformTool<C, S> {
  return tool;
}

/** A secret config field: write-only in the schema, encrypted at rest, masked in responses. */
export const secret = (description: string) => z.string().min(1).max(4096).meta({ description, writeOnly: true, "x-secret": true });

export const baseUrlField = z
  .string()
  .url()
  .max(2000)
  .optional()
  .meta({ description: "Override the API's base URL (for proxies, regional endpoints or tests)." });
