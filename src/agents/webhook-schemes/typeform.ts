import { hmacBase64 } from "../../lib/hmac";
import { BASE64_MAC, type SchemeVerifier, parseJson, rejected, requiredHeader, signaturesMatch, stringField } from "./types";

const HEADER = "Typeform-Signature";

/**
 * `Typeform-Signature: sha256=<base64 HMAC-SHA256 of the raw body>`, no timestamp. The id and
 * type are the body's own (signed); with no timestamp the signature never expires, so the body's
 * MAC is remembered for as long as the agent (`bodyMac`), past the event id's week.
 */
export const verifyTypeform: SchemeVerifier = async (secret, delivery) => {
  const header = requiredHeader(delivery.headers, HEADER);
  if (typeof header !== "string") return header;
  const presented = header.startsWith("sha256=") ? header.slice("sha256=".length) : "";
  if (!BASE64_MAC.test(presented)) return rejected(`${HEADER} must be sha256=<base64 HMAC-SHA256>.`);
  if (!signaturesMatch(await hmacBase64(secret, delivery.rawBody), presented)) return rejected(`${HEADER} does not match the body.`);

  const parsed = parseJson(delivery.rawBody);
  if (parsed.kind === "rejected") return parsed;
  const { value } = parsed;
  return { kind: "event", event: value, eventId: stringField(value, "event_id"), eventType: stringField(value, "event_type"), bodyMac: presented };
};
