// Segment's HTTP Tracking API (segment.com/docs/connections/sources/catalog/libraries/server/http-api):
// POST /v1/track|identify|page|group with JSON and the write key as the Basic user (empty
// password). It answers {"success": true} with 200 for any call it can read, and 400 for a call
// over 32 KB or a body that is not JSON, its documented refusals.
import { Answer, basicAuth } from "../fake-kit.mjs";

export const SEGMENT_WRITE_KEY_PREFIX = "seg-";
const MAX_CALL_BYTES = 32 * 1024;

function accept(req) {
  const auth = basicAuth(req);
  if (!auth?.user.startsWith(SEGMENT_WRITE_KEY_PREFIX) || auth.password !== "") return new Answer(401, { success: false });
  if (Buffer.byteLength(req.raw ?? "") > MAX_CALL_BYTES || typeof req.body !== "object" || !String(req.headers["content-type"]).startsWith("application/json"))
    return new Answer(400, "Bad Request", { "Content-Type": "text/plain" });
  return { success: true };
}

export const segmentRoutes = [["POST", /^\/v1\/(track|identify|page|group)$/, accept]];
