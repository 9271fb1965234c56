import { base64url } from "./base64url";

const encoder = new TextEncoder();

export { base64url, fromBase64url } from "./base64url";

/** A url-safe random string carrying `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/**
 * Lookup hash of a high-entropy secret (API key, refresh token, client secret, code).
 * A fast hash is enough here: the secrets are random, not guessable like passwords.
 */
export async function hashSecret(secret: string): Promise<string> {
  return base64url(await sha256(secret));
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  // Compare against itself when lengths differ, so timing does not reveal the length match.
  const other = left.length === right.length ? right : left;
  let diff = left.length === right.length ? 0 : 1;
  for (let i = 0; i < left.length; i++) diff |= left[i]! ^ other[i]!;
  return diff === 0;
}
