import { hmacHex } from "../lib/hmac";
import type { AddressPolicy } from "./address-policy";
import { type SafeResponse, safeFetch } from "./safe-fetch";

const TIMEOUT_MS = 10_000;

export interface SignedMessage {
  /** `X-Hub-Event`: what the body is (`approval.requested`, `alerts.digest`). */
  event: string;
  /** `X-Hub-Delivery`: this message's own id. */
  delivery: string;
  /** The same for every attempt at one message, so a receiver that honours it acts once. */
  idempotencyKey: string;
  /** The JSON text sent, exactly the bytes signed. */
  body: string;
}

/**
 * POSTs a JSON body signed with the hub's scheme (DESIGN §3): `X-Hub-Timestamp` (unix seconds) and
 * `X-Hub-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">` under `secret`. The URL goes
 * through the outbound guard (no private or metadata addresses where the deployment forbids them),
 * with no redirects followed. One attempt; the caller decides what a non-2xx answer means.
 */
export async function postSigned(url: string, secret: string, message: SignedMessage, policy: AddressPolicy, now = Date.now()): Promise<SafeResponse> {
  const timestamp = Math.floor(now / 1000).toString();
  return safeFetch(
    url,
    {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Hub-Event": message.event,
        "X-Hub-Timestamp": timestamp,
        "X-Hub-Signature": `sha256=${await hmacHex(secret, `${timestamp}.${message.body}`)}`,
        "X-Hub-Delivery": message.delivery,
        "Idempotency-Key": message.idempotencyKey,
      },
      body: message.body,
    },
    { policy, maxBytes: 64 * 1024, timeoutMs: TIMEOUT_MS, maxRedirects: 0 },
  );
}
