import { sha256 } from "../../lib/crypto";
import { hmacBase64 } from "../../lib/hmac";
import { BASE64_MAC, MAX_HEADER_LENGTH, type SchemeVerifier, outsideWindow, parseJson, rejected, requiredHeader, signaturesMatch, stringField } from "./types";

const SIGNATURE = "X-HubSpot-Signature-v3";
const TIMESTAMP = "X-HubSpot-Request-Timestamp";

/**
 * HubSpot's v3 request signature: `X-HubSpot-Signature-v3: <base64 HMAC-SHA256 of method + URL +
 * raw body + X-HubSpot-Request-Timestamp>`, the timestamp in milliseconds and within 5 minutes.
 * One request carries an array of events.
 */
export const verifyHubspot: SchemeVerifier = async (secret, delivery, nowMs) => {
  const presented = requiredHeader(delivery.headers, SIGNATURE);
  if (typeof presented !== "string") return presented;
  const timestamp = requiredHeader(delivery.headers, TIMESTAMP);
  if (typeof timestamp !== "string") return timestamp;
  if (!BASE64_MAC.test(presented)) return rejected(`${SIGNATURE} must be a base64 HMAC-SHA256 (44 characters).`);
  const stale = outsideWindow(TIMESTAMP, timestamp, "milliseconds", nowMs);
  if (stale) return stale;
  if (delivery.url.length > MAX_HEADER_LENGTH) return rejected("The request URL is longer than 8 KB.");
  const expected = await hmacBase64(secret, `${delivery.method}${signedUri(delivery.url)}${delivery.rawBody}${timestamp}`);
  if (!signaturesMatch(expected, presented)) return rejected(`${SIGNATURE} does not match the request (method, URL, body and timestamp).`);

  const parsed = parseJson(delivery.rawBody);
  if (parsed.kind === "rejected") return parsed;
  const events = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  const eventId = await batchId(events);
  // HubSpot re-signs a retry with a new timestamp, so the events' ids are the key; without them,
  // the signature (over the timestamp too) keeps the same request from running twice in its window.
  return {
    kind: "event",
    event: parsed.value,
    eventId,
    eventType: stringField(events[0], "subscriptionType"),
    ...(eventId ? {} : { replayKey: `mac:${presented}` }),
  };
};

/**
 * HubSpot signs the URL with these characters decoded (its "Validating requests" guide lists
 * them), so a URL that carries them percent-encoded is decoded the same way before verifying.
 */
const DECODED: Record<string, string> = {
  "3A": ":",
  "2F": "/",
  "3F": "?",
  "40": "@",
  "21": "!",
  "24": "$",
  "27": "'",
  "28": "(",
  "29": ")",
  "2A": "*",
  "2C": ",",
  "3B": ";",
};

function signedUri(url: string): string {
  return url.replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi, (_, code: string) => DECODED[code.toUpperCase()]!);
}

/**
 * A retried request carries the same events, so its id is derived from theirs: one event's own
 * `eventId`, or the sorted ids together (hashed when long). Unknown unless every event has one.
 */
async function batchId(events: unknown[]): Promise<string | null> {
  const ids: string[] = [];
  for (const event of events) {
    const id = event && typeof event === "object" ? (event as Record<string, unknown>).eventId : undefined;
    if (typeof id === "number" && Number.isFinite(id)) ids.push(String(id));
    else if (typeof id === "string" && id !== "" && id.length <= 200) ids.push(id);
    else return null;
  }
  if (ids.length <= 1) return ids[0] ?? null;
  const joined = ids.sort().join(",");
  if (joined.length <= 128) return joined;
  const digest = await sha256(joined);
  return `batch-${[...digest.subarray(0, 16)].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}
