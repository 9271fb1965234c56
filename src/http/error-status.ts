import type { ErrorCode } from "../core/errors";

/** The HTTP status of each domain error code. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  malformed_json: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  forbidden: 403,
  insufficient_scope: 403,
  insufficient_role: 403,
  registration_closed: 403,
  not_found: 404,
  conflict: 409,
  quota_exceeded: 409,
  limit_exceeded: 422,
  // As quota_exceeded: what the account may spend is spent. Not 429: waiting a minute does not
  // help (a day's or a month's budget resets later, or a person raises it), so clients must not retry.
  budget_exceeded: 409,
  tool_unavailable: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  internal_error: 500,
  provider_failed: 502,
  misconfigured: 500,
};
