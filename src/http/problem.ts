import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ApiError, ERROR_CODES, type ErrorCode } from "./errors";
import type { AppEnv } from "./app-env";
import { loggableError, withoutQueryStrings } from "../lib/safe-log";

/** Renders an error as RFC 9457 problem details with our stable `code` and the request id. */
export function problemResponse(c: Context<AppEnv>, error: ApiError): Response {
  const origin = new URL(c.req.url).origin;
  const body = {
    type: `${origin}/docs#error-${error.code}`,
    title: ERROR_CODES[error.code].title,
    status: error.status,
    detail: error.message,
    code: error.code,
    request_id: c.get("requestId") ?? null,
    ...(error.errors ? { errors: error.errors } : {}),
  };
  const headers = new Headers(error.headers);
  headers.set("Content-Type", "application/problem+json");
  headers.set("Cache-Control", "no-store");
  return new Response(JSON.stringify(body), { status: error.status, headers });
}

/** Maps anything thrown during a request onto an ApiError; unknown failures become a logged 500. */
export function toApiError(error: unknown, requestId: string | undefined): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPException) {
    const code = codeForStatus(error.status, error.message);
    return new ApiError(code, error.message || ERROR_CODES[code].title);
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
  return new ApiError("internal_error", "An unexpected error occurred. Quote the request_id when reporting it.");
}

function codeForStatus(status: number, message: string): ErrorCode {
  if (status === 400 && /json/i.test(message)) return "malformed_json";
  const match = (Object.keys(ERROR_CODES) as ErrorCode[]).find((code) => ERROR_CODES[code].status === status);
  return match ?? (status >= 500 ? "internal_error" : "bad_request");
}
