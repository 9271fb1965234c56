import { hmacHex } from "../../lib/hmac";
import { HEX_MAC, type SchemeVerifier, isFormEncoded, optionalHeader, parseJson, rejected, requiredHeader, signaturesMatch } from "./types";

const HEADER = "X-Hub-Signature-256";

/**
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`. The event's id and type come
 * from the `X-GitHub-Delivery` and `X-GitHub-Event` headers, which are not signed, and the body
 * does not name its event: the body's MAC is what the hub remembers (`replayKey`, `bodyMac`), so
 * a captured body cannot be sent again under another id or type. The `ping` GitHub sends when a
 * hook is created is answered, not run.
 */
export const verifyGithub: SchemeVerifier = async (secret, delivery) => {
  const header = requiredHeader(delivery.headers, HEADER);
  if (typeof header !== "string") return header;
  const presented = /^sha256=/i.test(header) ? header.slice("sha256=".length) : "";
  if (!HEX_MAC.test(presented)) return rejected(`${HEADER} must be sha256=<64 hex digits>.`);
  // Lower-cased: every spelling of one signature is one key.
  const mac = presented.toLowerCase();
  if (!signaturesMatch(await hmacHex(secret, delivery.rawBody), mac)) return rejected(`${HEADER} does not match the body.`);

  const eventType = optionalHeader(delivery.headers, "X-GitHub-Event");
  // The ping's body (hook settings, a proverb) is not needed to answer it, but is remembered.
  if (eventType === "ping") return { kind: "reply", body: { ok: true, event: "ping" }, bodyMac: mac, eventType };
  // A hook set to "application/x-www-form-urlencoded" sends the same JSON in a `payload` field.
  const json = isFormEncoded(delivery.headers) ? new URLSearchParams(delivery.rawBody).get("payload") : delivery.rawBody;
  if (json === null) return rejected("The form body has no payload field.");
  const parsed = parseJson(json);
  if (parsed.kind === "rejected") return parsed;
  const eventId = optionalHeader(delivery.headers, "X-GitHub-Delivery");
  return { kind: "event", event: parsed.value, eventId, eventType, replayKey: `mac:${mac}`, bodyMac: mac };
};
