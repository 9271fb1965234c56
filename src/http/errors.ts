/** Stable, machine-readable error codes; each is documented on the /docs page. */
export const ERROR_CODES = {
  bad_request: { status: 400, title: "Bad request" },
  malformed_json: { status: 400, title: "Malformed JSON" },
  unauthorized: { status: 401, title: "Unauthorized" },
  invalid_credentials: { status: 401, title: "Invalid credentials" },
  forbidden: { status: 403, title: "Forbidden" },
  insufficient_scope: { status: 403, title: "Insufficient scope" },
  registration_closed: { status: 403, title: "Registration closed" },
  not_found: { status: 404, title: "Not found" },
  conflict: { status: 409, title: "Conflict" },
  quota_exceeded: { status: 409, title: "Quota exceeded" },
  tool_unavailable: { status: 409, title: "Tool unavailable" },
  payload_too_large: { status: 413, title: "Payload too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  validation_failed: { status: 422, title: "Validation failed" },
  rate_limited: { status: 429, title: "Too many requests" },
  internal_error: { status: 500, title: "Internal error" },
  provider_failed: { status: 502, title: "Model provider failed" },
  misconfigured: { status: 500, title: "Server misconfigured" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  /** Where the value came from: body, query, path, header or form. */
  location: string;
  /** Dotted path of the field inside that location ("" for the whole of it). */
  field: string;
  message: string;
}

/** The one error type of the API: thrown anywhere, rendered as RFC 9457 problem details. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, detail: string, options: { errors?: FieldError[]; headers?: Record<string, string> } = {}) {
    super(detail);
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.errors = options.errors;
    this.headers = options.headers;
  }
}

export const notFound = (what: string) => new ApiError("not_found", `${what} not found`);

export const validationFailed = (errors: FieldError[], detail = "The request has invalid fields.") => new ApiError("validation_failed", detail, { errors });
