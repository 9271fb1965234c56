import { MAX_HEADER_LENGTH, type SchemeVerifier, parseJson, rejected, signaturesMatch } from "./types";

/**
 * The secret itself, sent as `Authorization: Bearer <secret>` or, for senders that only take a
 * URL, as `?token=<secret>`. Either one matching is enough: a sender may set its own
 * Authorization header while the token rides in the URL.
 */
export const verifyToken: SchemeVerifier = async (secret, delivery) => {
  const authorization = delivery.headers.get("Authorization")?.trim() ?? "";
  if (authorization.length > MAX_HEADER_LENGTH) return rejected("Authorization is longer than 8 KB.");
  const bearer = /^bearer +(\S+)$/i.exec(authorization)?.[1] ?? null;
  const query = queryToken(delivery.url);
  if (bearer === null && query === null) {
    return rejected(authorization ? "Authorization must be Bearer <secret>." : "Send the secret as Authorization: Bearer <secret> or ?token=<secret>.");
  }
  // Both are compared when both are sent, so the time taken does not say which one was right.
  const viaHeader = bearer !== null && signaturesMatch(secret, bearer);
  const viaQuery = query !== null && signaturesMatch(secret, query);
  if (!viaHeader && !viaQuery) return rejected("The token does not match.");

  if (delivery.rawBody.trim() === "") return { kind: "event", event: {}, eventId: null, eventType: null };
  const parsed = parseJson(delivery.rawBody);
  if (parsed.kind === "rejected") return parsed;
  return { kind: "event", event: parsed.value, eventId: null, eventType: null };
};

/** The first non-empty `token` query parameter, or null (also for a URL that does not parse). */
function queryToken(url: string): string | null {
  if (url.length > MAX_HEADER_LENGTH) return null;
  try {
    return new URL(url).searchParams.get("token") || null;
  } catch {
    return null;
  }
}
