import { z } from "@hono/zod-openapi";
import type { ToolContext } from "../../core/tool-context";
import type { ToolEffect } from "../../core/tool-effects";
import type { PlatformOAuth } from "./oauth-spec";

export type PlatformCategory =
  | "mcp"
  | "messaging"
  | "email"
  | "crm"
  | "marketing"
  | "database"
  | "productivity"
  | "developer"
  | "ai"
  | "payments"
  | "ecommerce"
  | "analytics"
  | "social"
  | "support"
  | "forms";
export type AuthKind = "bearer_token" | "bot_token" | "api_key" | "basic" | "signing_secret" | "optional_bearer" | "none" | "oauth2";

/** What a connection's status becomes when the platform refuses its credentials. */
export type AuthFailure = "error" | "expired";

/** What a failed call says beyond its message, where the platform's answer tells. */
export interface PlatformErrorDetails {
  /** The platform's own error code or category: `not_in_channel`, `CONFLICT`, `object_not_found`. */
  code?: string;
  /** Overrides what the status alone says (Slack answers `ratelimited` with 200, Resend a transient 409). */
  retryable?: boolean;
  /** How long the platform asked to wait before trying again (Retry-After, or its body's own field). */
  retryAfterSeconds?: number;
}

/**
 * A failed platform call. `status` is the HTTP status (0: the platform could not be reached),
 * `authFailure` says whether the connection itself is at fault, and `retryable` whether trying
 * again may succeed: a workflow step retries only those (DESIGN §5 "Permanent and transient failures").
 */
export class PlatformError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly authFailure?: AuthFailure,
    readonly details: PlatformErrorDetails = {},
  ) {
    super(message);
  }

  get code(): string | undefined {
    return this.details.code;
  }

  get retryable(): boolean {
    return this.details.retryable ?? isTransientStatus(this.status);
  }

  get retryAfterSeconds(): number | undefined {
    return this.details.retryAfterSeconds;
  }
}

/**
 * Statuses worth trying again: no answer at all (0), a timeout (408), too early (425), too many
 * requests (429) and the platform's own faults (5xx). Any other 4xx will be answered the same way
 * again (a duplicate, a missing object, a bad field, a refused token).
 */
export function isTransientStatus(status: number): boolean {
  return status === 0 || status === 408 || status === 425 || status === 429 || status >= 500;
}

/** What a platform's error body says, read by its `readError`; the client words the message. */
export interface PlatformFailure extends PlatformErrorDetails {
  /** The platform's own words, e.g. "Contact already exists. Existing ID: 151". */
  message: string;
  /** The connection's credentials were refused; null: a 401 that is not the connection's fault. */
  authFailure?: AuthFailure | null;
  /**
   * What "answered" names when the HTTP status says nothing (Slack's errors come with 200):
   * "Slack answered not_in_channel: …" rather than "…answered 200: …".
   */
  answer?: string;
}

export interface PlatformRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Appended to the connection's base URL. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /**
   * Sends `body` as application/x-www-form-urlencoded (Stripe, Twilio, Mailgun) instead of JSON;
   * nested objects and arrays become bracketed keys (`metadata[plan]`, `line_items[0][price]`).
   */
  encoding?: "json" | "form";
  headers?: Record<string, string>;
  /**
   * Answer headers the tool needs, for APIs that answer with an id in a header and no body
   * (LinkedIn's `x-restli-id` on a created post): the answer is then `{body, headers}`, with
   * these headers only (lowercase names, null when absent).
   */
  responseHeaders?: readonly string[];
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
  /** What a call does (read, write or destructive): declared by each tool, derived by method for custom platforms. */
  effect: ToolEffect;
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
  /**
   * The platform's error reader: what a failed answer's body says, in the platform's own words.
   * Called for every status ≥ 400, and for 2xx answers too (APIs like Slack's answer 200 with
   * ok:false); undefined means "no failure here" for a 2xx and "nothing to add" for a 4xx/5xx.
   */
  readError?(status: number, body: any): PlatformFailure | undefined;
  /**
   * The header that carries a workflow step's idempotency key, only for platforms that document
   * one (a retried step then cannot act twice there); absent, no key is sent.
   */
  idempotencyHeader?(config: C): string | undefined;
  /** The cheapest authenticated call, used by "test connection"; returns what it learned. */
  test?(client: PlatformClient<C>): Promise<string>;
  tools: PlatformTool<C, any>[];
  /** Connections made with OAuth 2.0 (authorization code with PKCE): endpoints, scopes, where the token goes. */
  oauth?: PlatformOAuth;
  /** The "new …" events a `poll` trigger can follow with one of the tools (docs/triggers.md#polling). */
  polls?: PlatformPoll[];
}

/** A `poll` trigger's recipe: the list tool to call and where its result's items and their ids are. */
export interface PlatformPoll {
  /** What starts a run, e.g. "New payment". */
  title: string;
  /** One of the platform's tools; its result lists items newest first with stable ids. */
  action: string;
  arguments?: Record<string, unknown>;
  items_path: string;
  id_path: string;
}

export function definePlatform<C>(platform: Platform<C>): Platform<C> {
  return platform;
}

export function platformTool<C, S extends z.ZodType>(tool: PlatformTool<C, S>): PlatformTool<C, S> {
  return tool;
}

/** A secret config field: write-only in the schema, encrypted at rest, masked in responses. */
/** A control character (a line break, say) in a pasted credential: it would break the header it goes into. */
const hasControlCharacter = (value: string) => {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
};

export const secret = (description: string) =>
  z
    .string()
    .min(1)
    .max(4096)
    .refine((value) => !hasControlCharacter(value), "Paste the credential alone: no line breaks or other control characters.")
    .meta({ description, writeOnly: true, "x-secret": true });

export const baseUrlField = z
  .string()
  .url()
  .max(2000)
  .optional()
  .meta({ description: "Override the API's base URL (for proxies, regional endpoints or tests)." });
