import type { Scope } from "./scopes";

/** Who is calling, resolved from the bearer credential by the authenticate middleware. */
export interface Principal {
  userId: number;
  scopes: Scope[];
  /** api_key, session (login JWT) or oauth (a token issued to an OAuth app). */
  kind: "api_key" | "session" | "oauth";
  /** Stable id of the credential, used for rate limits and audit records: `key_12`, `grant_…`. */
  credentialId: string;
  /** The OAuth app acting for the user, if any. */
  clientId: string | null;
  /** The one workspace the credential may act in (an API key bound to it), else null. */
  workspaceId: number | null;
}
