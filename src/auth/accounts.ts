import { and, eq } from "drizzle-orm";
import type { Config } from "../core/config";
import type { Runtime } from "../core/context";
import type { Db } from "../db/client";
import { users, type User } from "../db/schema";
import { HubError } from "../core/errors";
import { createGrant, issueTokens, type TokenResponse } from "./grants";
import { burnPasswordCheck, hashPassword, verifyPassword } from "./passwords";
import { ALL_SCOPES, formatScopes } from "../core/scopes";
import { withinSignInLimit } from "./sign-in-limit";

/** What a door needs to check a password: the database, and the account's sign-in limit. */
type SignInRuntime = Pick<Runtime, "db" | "config" | "bindings">;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * The answer to a registration that cannot go ahead. It says nothing about why: whether the
 * address has an account is for a sign-in to find out, not for anyone who asks.
 */
const NOT_REGISTERED = "An account could not be created with these details. If you already have one, sign in.";

/**
 * Creates an account, or (registering again with the same email and password) signs its owner
 * in, which tells nothing a login would not. Every path does one password hash's work, so the
 * time taken does not tell a taken address from a free one either.
 */
export async function registerUser(runtime: SignInRuntime, input: { email: string; password: string; name?: string | null }): Promise<User> {
  const { db } = runtime;
  const email = normalizeEmail(input.email);
  const existing = await db.select().from(users).where(eq(users.email, email)).get();
  if (existing) {
    // A password check like a sign-in's, so it counts against the same per-account limit.
    const same = await withinSignInLimit(runtime, email, async () => ((await verifyPassword(input.password, existing.passwordHash)) ? existing : undefined));
    if (same) return same;
    throw new HubError("conflict", NOT_REGISTERED);
  }
  const [user] = await db
    .insert(users)
    .values({ email, name: input.name ?? null, passwordHash: await hashPassword(input.password) })
    .onConflictDoNothing()
    .returning();
  if (!user) throw new HubError("conflict", NOT_REGISTERED);
  return user;
}

/**
 * Signs in with an email and password, the one way every door (the API, the dashboard, the
 * authorize page) checks them: within the account's limit of failed sign-ins, which answers
 * `rate_limited` (with the seconds to wait) without checking the password once it is used up.
 * A wrong password or an unknown email is `invalid_credentials`, the same for both.
 */
export async function signIn(runtime: SignInRuntime, input: { email: string; password: string }): Promise<User> {
  const email = normalizeEmail(input.email);
  const user = await withinSignInLimit(runtime, email, () => checkPassword(runtime.db, email, input.password));
  if (!user) throw new HubError("invalid_credentials", "Wrong email or password.");
  return user;
}

/** Checks an email and password; unknown emails cost the same time as wrong passwords. */
async function checkPassword(db: Db, email: string, password: string): Promise<User | undefined> {
  // A workspace is an account nobody signs in to.
  const user = await db
    .select()
    .from(users)
    .where(and(eq(users.email, email), eq(users.kind, "person")))
    .get();
  if (!user) {
    await burnPasswordCheck(password);
    return undefined;
  }
  return (await verifyPassword(password, user.passwordHash)) ? user : undefined;
}

/** A login session: a grant with every scope, an access JWT and a rotating refresh token. */
export async function startSession(db: Db, config: Config, user: User): Promise<TokenResponse> {
  const grant = await createGrant(db, { userId: user.id, kind: "login", scopes: formatScopes(ALL_SCOPES) });
  return issueTokens(db, config, grant);
}

export function findUser(db: Db, id: number): Promise<User | undefined> {
  return db.select().from(users).where(eq(users.id, id)).get();
}

export function presentUser(user: User) {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    default_provider: user.defaultProvider,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}
