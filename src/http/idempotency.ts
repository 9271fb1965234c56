import { validationFailed } from "../core/errors";
import { base64url, sha256 } from "../lib/crypto";

/** Visible ASCII, as keys are usually UUIDs or similar tokens. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The `Idempotency-Key` header of a request that starts work, with a hash of what the request
 * asks for (`request`: the target and the input), so that the same key sent with a different
 * request can be refused instead of silently answering with the first one.
 */
export async function readIdempotencyKey(header: string | undefined, request: unknown): Promise<{ key: string; requestHash: string } | undefined> {
  if (header === undefined) return undefined;
  if (!KEY.test(header)) {
    throw validationFailed([{ location: "header", field: "Idempotency-Key", message: "1 to 255 visible ASCII characters (a UUID, say)." }]);
  }
  return { key: header, requestHash: base64url(await sha256(JSON.stringify(request))) };
}

/** Says that the answer is the one the key got the first time (no new work was started). */
export const REPLAYED_HEADER = "Idempotent-Replayed";
