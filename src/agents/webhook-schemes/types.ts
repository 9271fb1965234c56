import { constantTimeEqual } from "../../lib/crypto";

// What every scheme shares: the delivery it reads, the outcome it answers, and the few checks
// each one repeats (bounded headers, the 5-minute window, JSON read only after verification).

export type ProviderScheme = "stripe" | "github" | "slack" | "shopify" | "hubspot" | "typeform" | "token";

export const PROVIDER_SCHEMES: readonly ProviderScheme[] = ["stripe", "github", "slack", "shopify", "hubspot", "typeform", "token"];

export interface InboundDelivery {
  method: string;
  /** The full URL as the caller sent it (scheme, host, path, query). */
  url: string;
  headers: Headers;
  /** The exact body text as received: every signature covers these bytes. */
  rawBody: string;
}

export type SchemeOutcome =
  /** 401. The reason is shown to the person debugging: never the secret or the expected signature. */
  | { kind: "rejected"; reason: string }
  /**
   * Verified and answered 200 with this body; no run (Slack's url_verification, GitHub's ping).
   * `bodyMac` and `eventType` as for an event: a signed handshake is remembered too, so it cannot
   * come back under another type.
   */
  | { kind: "reply"; body: Record<string, unknown>; bodyMac?: string; eventType?: string | null }
  | {
      kind: "event";
      event: unknown;
      eventId: string | null;
      eventType: string | null;
      /**
       * What makes a delivery the same one again, where no signed event id says so: a scheme with
       * no timestamp (GitHub, Shopify) signs only the body and carries the id in a header it does
       * not sign, and a Slack slash command or interactivity post has no id at all. The MAC is the
       * key (a provider's own retry sends the same body, hence the same MAC); where the MAC covers
       * a timestamp (Slack, Stripe, HubSpot), a captured request is a duplicate for as long as its
       * timestamp is accepted. Left out where a signed event id is the better key: Slack and
       * HubSpot re-sign a retry with a new timestamp, and only the id stays.
       */
      replayKey?: string;
      /**
       * The MAC of a scheme that signs the body alone, with no timestamp (GitHub, Shopify,
       * Typeform): such a signature is good for as long as the secret, so the hub remembers it for
       * as long as the agent, bound to the first event type it came with (body-replays.ts).
       */
      bodyMac?: string;
    };

export type Rejected = Extract<SchemeOutcome, { kind: "rejected" }>;

export type SchemeVerifier = (secret: string, delivery: InboundDelivery, nowMs: number) => Promise<SchemeOutcome>;

export const rejected = (reason: string): Rejected => ({ kind: "rejected", reason });

export const TOLERANCE_MS = 5 * 60 * 1000;

/** Longer headers are refused unread: a signature header is never near this. */
export const MAX_HEADER_LENGTH = 8 * 1024;

export const BODY_NOT_JSON = "The body must be JSON.";

/** A header the scheme cannot do without: its value, or the refusal naming it. */
export function requiredHeader(headers: Headers, name: string): string | Rejected {
  const value = headers.get(name);
  if (value === null || value.trim() === "") return rejected(`${name} is missing.`);
  if (value.length > MAX_HEADER_LENGTH) return rejected(`${name} is longer than 8 KB.`);
  return value.trim();
}

/** A header that only labels the event (id, type): absent, empty or oversized reads as null. */
export function optionalHeader(headers: Headers, name: string): string | null {
  const value = headers.get(name)?.trim();
  return value && value.length <= MAX_HEADER_LENGTH ? value : null;
}

/**
 * Refuses a timestamp that is not a whole number of `unit`, or is more than 5 minutes from now
 * in either direction (a sender's clock may run ahead). `label` names it in the reason.
 */
export function outsideWindow(label: string, value: string, unit: "seconds" | "milliseconds", nowMs: number): Rejected | null {
  if (!/^\d{1,16}$/.test(value)) return rejected(`${label} must be unix ${unit}.`);
  const sentMs = unit === "seconds" ? Number(value) * 1000 : Number(value);
  if (Math.abs(nowMs - sentMs) > TOLERANCE_MS) return rejected(`${label} is more than 5 minutes off.`);
  return null;
}

/** Whether the presented signature is the computed one, in time independent of where they differ. */
export const signaturesMatch = (computed: string, presented: string) => constantTimeEqual(computed, presented);

/** Only called on a verified body: unverified bytes are never parsed. */
export function parseJson(text: string, reason = BODY_NOT_JSON): { kind: "parsed"; value: unknown } | Rejected {
  try {
    return { kind: "parsed", value: JSON.parse(text) };
  } catch {
    return rejected(reason);
  }
}

/** Providers that post HTML-form bodies (`payload=` for Slack interactivity, GitHub's form option). */
export function isFormEncoded(headers: Headers): boolean {
  return (headers.get("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase() === "application/x-www-form-urlencoded";
}

/** `value[key]` when `value` is an object and that field is a non-empty string; else null. */
export function stringField(value: unknown, key: string): string | null {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const field = (value as Record<string, unknown>)[key];
  return typeof field === "string" && field !== "" ? field : null;
}

/** A 32-byte HMAC in standard base64: 43 characters and one `=`. */
export const BASE64_MAC = /^[A-Za-z0-9+/]{43}=$/;

/** A 32-byte HMAC in hex, either letter case. */
export const HEX_MAC = /^[0-9a-fA-F]{64}$/;
