import { hmacBase64 } from "../../lib/hmac";
import { BASE64_MAC, type SchemeVerifier, optionalHeader, parseJson, rejected, requiredHeader, signaturesMatch } from "./types";

const HEADER = "X-Shopify-Hmac-Sha256";

/**
 * `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the raw body>`, no timestamp. The id is the
 * webhook id Shopify keeps across retries of one delivery (else the event id); the type is the
 * topic (`orders/create`). Neither header is signed, and the body is the resource (an order, a
 * customer) with no field naming the topic, so there is nothing to check the topic against: the
 * body's MAC is what the hub remembers (`replayKey`, `bodyMac`).
 */
export const verifyShopify: SchemeVerifier = async (secret, delivery) => {
  const presented = requiredHeader(delivery.headers, HEADER);
  if (typeof presented !== "string") return presented;
  if (!BASE64_MAC.test(presented)) return rejected(`${HEADER} must be a base64 HMAC-SHA256 (44 characters).`);
  // Base64 is case-sensitive: compared as sent.
  if (!signaturesMatch(await hmacBase64(secret, delivery.rawBody), presented)) return rejected(`${HEADER} does not match the body.`);

  const parsed = parseJson(delivery.rawBody);
  if (parsed.kind === "rejected") return parsed;
  const { headers } = delivery;
  const eventId = optionalHeader(headers, "X-Shopify-Webhook-Id") ?? optionalHeader(headers, "X-Shopify-Event-Id");
  const eventType = optionalHeader(headers, "X-Shopify-Topic");
  return { kind: "event", event: parsed.value, eventId, eventType, replayKey: `mac:${presented}`, bodyMac: presented };
};
