import { base64url, constantTimeEqual, fromBase64url } from "../lib/crypto";

/** The Workers runtime refuses more PBKDF2 iterations than this. */
const ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;

// Stored as pbkdf2_sha256$<iterations>$<salt>$<hash>, so the cost can change without a migration.
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, ITERATIONS);
  return `pbkdf2_sha256$${ITERATIONS}$${base64url(salt)}$${base64url(hash)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterations, salt, hash] = stored.split("$");
  if (scheme !== "pbkdf2_sha256" || !iterations || !salt || !hash) return false;
  const rounds = Number(iterations);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > ITERATIONS) return false;
  const candidate = await derive(password, fromBase64url(salt), rounds);
  return constantTimeEqual(base64url(candidate), hash);
}

/** Burns the same time as a real check, so unknown emails cannot be told apart by timing. */
export async function burnPasswordCheck(password: string): Promise<void> {
  await derive(password, new Uint8Array(SALT_BYTES), ITERATIONS);
}

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BITS);
  return new Uint8Array(bits);
}
