import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { HubError, ERROR_CODES, type ErrorCode } from "../core/errors";
import { ERROR_STATUS } from "./error-status";
import type { AppEnv } from "./app-env";
import { loggableError, withoutQueryStrings } from "../lib/safe-log";

/** Renders an error as RFC 9457 problem details with our stable `code` and the request id. */
export function problemResponse(c: Context<AppEnv>, error: HubError): Response {
  const origin = new URL(c.req.url).origin;
  const status = ERROR_STATUS[error.code];
  const body = {
    type: `${origin}/docs#error-${error.code}`,
    title: ERROR_CODES[error.code],
    status,
    detail: error.message,
    code: error.code,
    request_id: c.get("requestId") ?? null,
    ...(error.errors ? { errors: error.errors } : {}),
  };
  return new Response(JSON.stringify(body), { status, headers: problemHeaders(error) });
}

/** The hints of a domain error, as HTTP fields. */
export function problemHeaders(error: HubError): Headers {
  const headers = new Headers({ "Content-Type": "application/problem+json", "Cache-Control": "no-store" });
  const { challenge, retryAfterSeconds, rateLimit } = error.hints;
  if (challenge) headers.set("WWW-Authenticate", challenge);
  if (retryAfterSeconds !== undefined) headers.set("Retry-After", String(retryAfterSeconds));
  if (rateLimit) {
    headers.set("RateLimit-Policy", rateLimit.policy);
    headers.set("RateLimit", rateLimit.state);
  }
  return headers;
}

/** Maps anything thrown during a request onto an HubError; unknown failures become a logged 500. */
export function toHubError(error: unknown, requestId: string | undefined): HubError {
  if (error instanceof HubError) return error;
  if (error instanceof HTTPException) {
    const code = codeForStatus(error.status, error.message);
    return new HubError(code, error.message || ERROR_CODES[code]);
  }
  // Our own fault: log enough to find it, never the request or query parameters (they may hold
  // emails, hashes or credentials). Drizzle's query errors carry the parameters in their message.
  const queryError = error instanceof Error && "query" in error && "params" in error;
  console.error(
    JSON.stringify({
      level: "error",
      request_id: requestId,
      message: loggableError(error),
      query: queryError ? (error as Error & { query: string }).query : undefined,
      // The stack's first line is the message again: cut the same way.
      stack: !queryError && error instanceof Error && error.stack ? withoutQueryStrings(error.stack) : undefined,
    }),
  );
  return new HubError("internal_error", "An unexpected error occurred. Quote the request_id when reporting it.");
}

function codeForStatus(status: number, message: string): ErrorCode {
  if (status === 400 && /json/i.test(message)) return "malformed_json";
  const match = (Object.keys(ERROR_STATUS) as ErrorCode[]).find((code) => ERROR_STATUS[code] === status);
  return match ?? (status >= 500 ? "internal_error" : "bad_request");
}
