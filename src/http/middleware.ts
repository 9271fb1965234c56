import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { runtimeFor } from "../core/context";
import type { AppEnv } from "./app-env";
import { HubError, validationFailed } from "../core/errors";
import { nestsDeeperThan, tooDeepMessage } from "../lib/json-depth";

export const MAX_BODY_BYTES = 1024 * 1024;
/** Deeper than any route's body needs; values inside are held to `MAX_NESTING` (64) where walked. */
export const MAX_BODY_NESTING = 128;
const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * Builds the per-request services once: request id, parsed config, database client. Every answer,
 * problems included, carries the request id and `X-Content-Type-Options: nosniff` (a browser
 * reads a body only as its declared type, never a JSON answer as a page or a script).
 */
export const initRequest = createMiddleware<AppEnv>(async (c, next) => {
  const incoming = c.req.header("X-Request-Id");
  const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
  c.set("requestId", requestId);
  const runtime = runtimeFor(c.env, { requestId, waitUntil: (work) => c.executionCtx.waitUntil(work) });
  c.set("runtime", runtime);
  c.set("config", runtime.config);
  c.set("db", runtime.db);
  await next();
  c.header("X-Request-Id", requestId);
  // c.header has made the answer's headers writable: set this one on them without copying the answer again.
  c.res.headers.set("X-Content-Type-Options", "nosniff");
});

/** 413 for bodies over 1 MiB, whether or not Content-Length was sent. */
export const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new HubError("payload_too_large", `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`);
  },
});

const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

/**
 * The API speaks JSON: a request that carries a body in another format gets 415 rather than
 * being read as empty. The OAuth token endpoint (form-encoded by RFC 6749) checks its own.
 */
export const requireJsonBody = createMiddleware<AppEnv>(async (c, next) => {
  const hasBody = c.req.header("Content-Length") ? c.req.header("Content-Length") !== "0" : c.req.raw.body !== null;
  if (hasBody && !["GET", "HEAD", "DELETE", "OPTIONS"].includes(c.req.method)) {
    const type = c.req.header("Content-Type") ?? "";
    if (!JSON_TYPE.test(type)) {
      throw new HubError("unsupported_media_type", `Send the body as application/json (got ${type ? `"${type}"` : "no Content-Type"}).`);
    }
  }
  await next();
});

/**
 * Schemas validate recursively (conditions nest): a body nested thousands of levels deep would
 * overflow the validator's stack. Runs after authentication, so only a known caller's body is
 * parsed here (the route's validator reuses the parse).
 */
export const limitNesting = createMiddleware<AppEnv>(async (c, next) => {
  if (!["GET", "HEAD", "DELETE", "OPTIONS"].includes(c.req.method) && JSON_TYPE.test(c.req.header("Content-Type") ?? "")) {
    const body = await c.req.json().catch(() => undefined);
    if (nestsDeeperThan(body, MAX_BODY_NESTING)) {
      throw validationFailed([{ location: "body", field: "", message: tooDeepMessage(MAX_BODY_NESTING) }], "The body nests too deeply.");
    }
  }
  await next();
});
