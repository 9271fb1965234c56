const encoder = new TextEncoder();

/**
 * HMAC-SHA256 of `message` under `secret`, both taken as UTF-8: the providers we verify all key
 * the MAC with the secret's text as shown to the person, not a decoded form of it.
 */
export async function hmacSha256(secret: string, message: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}

/** The MAC as lower-case hex (GitHub, Stripe, Slack). */
export async function hmacHex(secret: string, message: string): Promise<string> {
  let hex = "";
  for (const byte of await hmacSha256(secret, message)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** The MAC as standard base64 with padding (Shopify, HubSpot, Typeform). */
export async function hmacBase64(secret: string, message: string): Promise<string> {
  let binary = "";
  for (const byte of await hmacSha256(secret, message)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
