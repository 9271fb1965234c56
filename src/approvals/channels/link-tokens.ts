import { hashSecret, randomToken } from "../../lib/crypto";

/**
 * An approval's email link is `/approvals/<lookup>.<own>`: `lookup` (128 random bits) finds the
 * approval (only its SHA-256 is stored, in `link_token_hash`, cleared when the approval is decided
 * or expires: the link dies with it); `own` (128 more) is the recipient's own part (its SHA-256
 * kept with that email channel), so a decision says which address made it and one recipient
 * cannot pass for another.
 */
const TOKEN = /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/;

export interface IssuedLinks {
  lookupHash: string;
  /** One per email recipient, in the order asked. */
  recipients: { token: string; hash: string }[];
}

export async function issueLinks(count: number): Promise<IssuedLinks> {
  const lookup = randomToken(16);
  const recipients = await Promise.all(
    Array.from({ length: count }, async () => {
      const own = randomToken(16);
      return { token: `${lookup}.${own}`, hash: await hashSecret(own) };
    }),
  );
  return { lookupHash: await hashSecret(lookup), recipients };
}

export const linkUrl = (origin: string, token: string) => `${origin}/approvals/${token}`;

/** A token's two parts, hashed as stored; undefined for anything not shaped like a token. */
export async function tokenHashes(token: string): Promise<{ lookupHash: string; ownHash: string } | undefined> {
  if (!TOKEN.test(token)) return undefined;
  const [lookup, own] = token.split(".") as [string, string];
  return { lookupHash: await hashSecret(lookup), ownHash: await hashSecret(own) };
}
