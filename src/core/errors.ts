/**
 * The one error type of the services. It names what went wrong in domain terms (a `code` and a
 * sentence for the caller); each transport maps it: the HTTP layer to RFC 9457 problem details
 * (`http/problem.ts`), the MCP server to MCP errors. Services never know which door called them.
 */
export const ERROR_CODES = {
  bad_request: "Bad request",
  malformed_json: "Malformed JSON",
  unauthorized: "Unauthorized",
  invalid_credentials: "Invalid credentials",
  forbidden: "Forbidden",
  insufficient_scope: "Insufficient scope",
  insufficient_role: "Insufficient role",
  registration_closed: "Registration closed",
  not_found: "Not found",
  conflict: "Conflict",
  quota_exceeded: "Quota exceeded",
  limit_exceeded: "Limit exceeded",
  budget_exceeded: "Budget exceeded",
  tool_unavailable: "Tool unavailable",
  payload_too_large: "Payload too large",
  unsupported_media_type: "Unsupported media type",
  validation_failed: "Validation failed",
  rate_limited: "Too many requests",
  internal_error: "Internal error",
  provider_failed: "Model provider failed",
  misconfigured: "Server misconfigured",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  /** Where the value came from: body, query, path, header or form. */
  location: string;
  /** Dotted path of the field inside that location ("" for the whole of it). */
  field: string;
  message: string;
}

/** What a transport may tell the caller besides the message, in its own way. */
export interface ErrorHints {
  /** An authentication challenge (HTTP sends it as WWW-Authenticate). */
  challenge?: string;
  /** Seconds until a retry can succeed (HTTP: Retry-After). */
  retryAfterSeconds?: number;
  /** The rate limits that applied, as IETF RateLimit-Policy and RateLimit field values. */
  rateLimit?: { policy: string; state: string };
}

export class HubError extends Error {
  readonly code: ErrorCode;
  readonly errors?: FieldError[];
  readonly hints: ErrorHints;

  constructor(code: ErrorCode, detail: string, options: { errors?: FieldError[] } & ErrorHints = {}) {
    super(detail);
    const { errors, ...hints } = options;
    this.code = code;
    this.errors = errors;
    this.hints = hints;
  }
}

export const notFound = (what: string) => new HubError("not_found", `${what} not found`);

export const validationFailed = (errors: FieldError[], detail = "The request has invalid fields.") => new HubError("validation_failed", detail, { errors });
