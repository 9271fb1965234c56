import { hmacHex } from "../../lib/hmac";
import {
  HEX_MAC,
  type SchemeOutcome,
  type SchemeVerifier,
  isFormEncoded,
  outsideWindow,
  parseJson,
  rejected,
  requiredHeader,
  signaturesMatch,
  stringField,
} from "./types";

const SIGNATURE = "X-Slack-Signature";
const TIMESTAMP = "X-Slack-Request-Timestamp";

/**
 * `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<X-Slack-Request-Timestamp>:<raw body>">`, the
 * timestamp within 5 minutes. Events API bodies are JSON; slash commands and interactivity post
 * forms, signed the same way over the raw form text. Everything that names the event is in the
 * signed body.
 *
 * Replays: an Events API envelope is the same event again by its `event_id` (Slack's retries
 * reuse it, with a new timestamp and so a new signature). Requests with no `event_id` (slash
 * commands, interactivity, envelopes such as `app_rate_limited`) are the same request again by
 * their signature, which covers the timestamp: a captured one sent again within the window is a
 * duplicate, and outside it the timestamp is refused.
 */
export const verifySlack: SchemeVerifier = async (secret, delivery, nowMs) => {
  const signature = requiredHeader(delivery.headers, SIGNATURE);
  if (typeof signature !== "string") return signature;
  const timestamp = requiredHeader(delivery.headers, TIMESTAMP);
  if (typeof timestamp !== "string") return timestamp;
  const presented = signature.startsWith("v0=") ? signature.slice(3) : "";
  if (!HEX_MAC.test(presented)) return rejected(`${SIGNATURE} must be v0=<64 hex digits>.`);
  const stale = outsideWindow(TIMESTAMP, timestamp, "seconds", nowMs);
  if (stale) return stale;
  const expected = await hmacHex(secret, `v0:${timestamp}:${delivery.rawBody}`);
  if (!signaturesMatch(expected, presented.toLowerCase())) return rejected(`${SIGNATURE} does not match the body.`);

  const outcome = isFormEncoded(delivery.headers) ? formEvent(delivery.rawBody) : jsonEvent(delivery.rawBody);
  return outcome.kind === "event" && outcome.eventId === null ? { ...outcome, replayKey: `mac:${expected}` } : outcome;
};

/** The Events API envelope: `event_callback` carries `event_id` and `event.type`. */
function jsonEvent(rawBody: string): SchemeOutcome {
  const parsed = parseJson(rawBody);
  if (parsed.kind === "rejected") return parsed;
  const body = parsed.value;
  // Slack checks the endpoint by asking for its challenge back before sending any event.
  if (stringField(body, "type") === "url_verification") {
    const challenge = stringField(body, "challenge");
    return challenge === null ? rejected("The url_verification challenge must be a string.") : { kind: "reply", body: { challenge } };
  }
  const inner = body && typeof body === "object" ? (body as Record<string, unknown>).event : undefined;
  // Envelopes without an inner event (app_rate_limited) are typed by their own `type`.
  return { kind: "event", event: body, eventId: stringField(body, "event_id"), eventType: stringField(inner, "type") ?? stringField(body, "type") };
}

/**
 * Interactivity sends its JSON in a `payload` field (typed by `payload.type`); a slash command
 * is plain fields (typed by `command`). Neither carries an event id.
 */
function formEvent(rawBody: string): SchemeOutcome {
  const form = new URLSearchParams(rawBody);
  const payload = form.get("payload");
  if (payload !== null) {
    const parsed = parseJson(payload, "The payload field must be JSON.");
    if (parsed.kind === "rejected") return parsed;
    return { kind: "event", event: parsed.value, eventId: null, eventType: stringField(parsed.value, "type") };
  }
  const fields = Object.fromEntries(form);
  return { kind: "event", event: fields, eventId: null, eventType: stringField(fields, "command") };
}
