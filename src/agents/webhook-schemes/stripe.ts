import { hmacHex } from "../../lib/hmac";
import { type SchemeVerifier, outsideWindow, parseJson, rejected, requiredHeader, signaturesMatch, stringField } from "./types";

const HEADER = "Stripe-Signature";

/** While a secret is being rolled Stripe signs once per active secret; a few are plenty. */
const MAX_V1 = 10;

/**
 * `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, possibly with
 * several `v1` (any may match). Other schemes (`v0`, Stripe's fake test-mode signature) are
 * ignored, as Stripe says to, so a weaker scheme can never stand in for `v1`.
 */
export const verifyStripe: SchemeVerifier = async (secret, delivery, nowMs) => {
  const header = requiredHeader(delivery.headers, HEADER);
  if (typeof header !== "string") return header;
  let timestamp: string | null = null;
  const signatures: string[] = [];
  for (const element of header.split(",")) {
    const at = element.indexOf("=");
    if (at < 0) continue;
    const key = element.slice(0, at).trim();
    const value = element.slice(at + 1).trim();
    if (key === "t") {
      // Two timestamps leave it unclear which one was signed.
      if (timestamp !== null) return rejected(`${HEADER} has more than one t= timestamp.`);
      timestamp = value;
    } else if (key === "v1" && signatures.length < MAX_V1) signatures.push(value.toLowerCase());
  }
  if (timestamp === null) return rejected(`${HEADER} has no t= timestamp.`);
  if (signatures.length === 0) return rejected(`${HEADER} has no v1 signature.`);
  const stale = outsideWindow(`The ${HEADER} timestamp`, timestamp, "seconds", nowMs);
  if (stale) return stale;

  const expected = await hmacHex(secret, `${timestamp}.${delivery.rawBody}`);
  // Every entry is compared, so the time taken does not say which one (if any) matched.
  let matched = false;
  for (const signature of signatures) matched = signaturesMatch(expected, signature) || matched;
  if (!matched) return rejected(`No v1 signature in ${HEADER} matches the body.`);

  const parsed = parseJson(delivery.rawBody);
  if (parsed.kind === "rejected") return parsed;
  const eventId = stringField(parsed.value, "id");
  // Stripe's events all have an id; a body without one is still kept from running twice within its window.
  return { kind: "event", event: parsed.value, eventId, eventType: stringField(parsed.value, "type"), ...(eventId ? {} : { replayKey: `mac:${expected}` }) };
};
