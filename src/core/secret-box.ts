import { base64url, fromBase64url } from "../lib/base64url";
import { HubError } from "./errors";

/**
 * AES-256-GCM for connection credentials. Each value gets a random 96-bit IV, and the
 * ciphertext is bound to its record and field through additional data, so a value copied to
 * another row or field fails to decrypt. Format: `v1.<key id>.<iv>.<ciphertext+tag>`.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): Promise<string>;
  open(sealed: string, context: string): Promise<string>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Keys come from ENCRYPTION_KEY (base64 of 32 bytes, key id "k1"). For rotation, set
 * ENCRYPTION_KEYS to `kid:base64,kid:base64`: the first one encrypts, all of them decrypt.
 */
export async function createSecretBox(encryptionKey: string | undefined, encryptionKeys?: string): Promise<SecretBox> {
  const entries: [string, string][] = encryptionKeys
    ? encryptionKeys.split(",").map((pair) => {
        const [kid, key] = pair.trim().split(":");
        return [kid ?? "", key ?? ""];
      })
    : encryptionKey
      ? [["k1", encryptionKey]]
      : [];
  if (entries.length === 0) throw new HubError("misconfigured", "ENCRYPTION_KEY is not set (base64 of 32 random bytes). See the README, Configuration.");
  const keys = new Map<string, CryptoKey>();
  for (const [kid, raw] of entries) {
    const bytes = decodeKey(raw);
    if (!/^[a-z0-9]{1,16}$/i.test(kid) || bytes.length !== 32) {
      throw new HubError("misconfigured", "Each encryption key needs an id of letters and digits and exactly 32 bytes (base64).");
    }
    keys.set(kid, await crypto.subtle.importKey("raw", bytes, "AES-GCM", false, ["encrypt", "decrypt"]));
  }
  const [currentKid] = entries[0]!;

  return {
    async seal(plaintext, context) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const ciphertext = await crypto.subtle.encrypt(
        { name: "AES-GCM", iv, additionalData: encoder.encode(context) },
        keys.get(currentKid)!,
        encoder.encode(plaintext),
      );
      return `v1.${currentKid}.${base64url(iv)}.${base64url(new Uint8Array(ciphertext))}`;
    },
    async open(sealed, context) {
      const [version, kid, iv, ciphertext] = sealed.split(".");
      const key = kid ? keys.get(kid) : undefined;
      if (version !== "v1" || !key || !iv || !ciphertext) throw new SecretUnreadable();
      try {
        const plaintext = await crypto.subtle.decrypt(
          { name: "AES-GCM", iv: fromBase64url(iv), additionalData: encoder.encode(context) },
          key,
          fromBase64url(ciphertext),
        );
        return decoder.decode(plaintext);
      } catch {
        // Tampered, moved to another record, or sealed with a key we no longer hold: fail closed.
        throw new SecretUnreadable();
      }
    },
  };
}

export class SecretUnreadable extends Error {
  constructor() {
    super("A stored credential could not be decrypted.");
  }
}

function decodeKey(raw: string): Uint8Array {
  try {
    return Uint8Array.from(atob(raw.trim()), (ch) => ch.charCodeAt(0));
  } catch {
    return new Uint8Array();
  }
}
