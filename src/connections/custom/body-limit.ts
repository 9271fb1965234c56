import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { HubError } from "../../core/errors";
import { limitBody } from "../../http/middleware";
import type { AppEnv } from "../../http/app-env";
import { MAX_DOCUMENT_BYTES } from "./openapi-import";

/** `POST /v1/platforms` carries an OpenAPI document: up to 2 MiB (DESIGN §5), where every other body gets 1 MiB. */
const limitDocument = bodyLimit({
  maxSize: MAX_DOCUMENT_BYTES + 1024,
  onError: () => {
    throw new HubError("payload_too_large", `OpenAPI documents are limited to ${MAX_DOCUMENT_BYTES} bytes (2 MiB).`);
  },
});

/** The API's body limit, with the larger one for uploading a custom platform's document. */
export const limitBodyOrDocument = createMiddleware<AppEnv>((c, next) =>
  c.req.method === "POST" && c.req.path === "/v1/platforms" ? limitDocument(c, next) : limitBody(c, next),
);
