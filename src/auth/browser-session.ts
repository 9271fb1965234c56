import type { Context } from "hono";
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import { and, eq, isNull } from "drizzle-orm";
import { SignJWT, jwtVerify } from "jose";
import type { AppEnv } from "../http/app-env";
import { grants } from "../db/schema";
import { formatScopes, ALL_SCOPES } from "../core/scopes";
import { base64url, constantTimeEqual, randomToken } from "../lib/crypto";
import { createGrant, revokeGrant } from "./grants";
import { signingKey } from "./jwt";

const SESSION_COOKIE = "ahk_session";
const CSRF_COOKIE = "ahk_csrf";
export const SESSION_TTL_SECONDS = 12 * 3600;

const secure = (c: Context<AppEnv>) => new URL(c.req.url).protocol === "https:";

/** A signed-in browser: the person, and the login grant the sign-in made (what sign-out revokes). */
export interface BrowserSession {
  userId: number;
  grantId: string;
}

/**
 * A person's sign-in in the browser (the dashboard and the authorize page), kept in an HttpOnly,
 * SameSite=Lax cookie (Secure over https). Each sign-in makes a first-party login grant and a
 * new cookie, so a cookie planted before sign-in never becomes the person's session (session
 * fixation), and signing out revokes the grant, so a copied cookie stops working at once. The
 * cookie is never accepted as an API credential (its own audience).
 */
export async function startBrowserSession(c: Context<AppEnv>, userId: number): Promise<BrowserSession> {
  const config = c.get("config");
  const grant = await createGrant(c.get("db"), { userId, kind: "browser", scopes: formatScopes(ALL_SCOPES) });
  const token = await new SignJWT({ gid: grant.id })
    .setProtectedHeader({ alg: "HS256", typ: "session+jwt" })
    .setIssuer(config.jwtIssuer)
    .setAudience(`${config.jwtIssuer}/browser`)
    .setSubject(String(userId))
    .setIssuedAt()
    .setExpirationTime(`${SESSION_TTL_SECONDS}s`)
    .sign(signingKey(config));
  setCookie(c, SESSION_COOKIE, token, { httpOnly: true, sameSite: "Lax", path: "/", secure: secure(c), maxAge: SESSION_TTL_SECONDS });
  return { userId, grantId: grant.id };
}

/** The browser's session, if its cookie is valid and its sign-in was not ended. */
export async function browserSession(c: Context<AppEnv>): Promise<BrowserSession | undefined> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return undefined;
  const config = c.get("config");
  try {
    const { payload } = await jwtVerify(token, signingKey(config), {
      algorithms: ["HS256"],
      issuer: config.jwtIssuer,
      audience: `${config.jwtIssuer}/browser`,
      typ: "session+jwt",
    });
    const userId = Number(payload.sub);
    const grantId = typeof payload.gid === "string" ? payload.gid : undefined;
    if (!Number.isInteger(userId) || !grantId) return undefined;
    const live = await c
      .get("db")
      .select({ id: grants.id })
      .from(grants)
      .where(and(eq(grants.id, grantId), eq(grants.userId, userId), isNull(grants.revokedAt)))
      .get();
    return live ? { userId, grantId } : undefined;
  } catch {
    return undefined;
  }
}

export async function browserSessionUser(c: Context<AppEnv>): Promise<number | undefined> {
  return (await browserSession(c))?.userId;
}

/** Signs the browser out: its grant is revoked and its cookie dropped. */
export async function endBrowserSession(c: Context<AppEnv>): Promise<void> {
  const session = await browserSession(c);
  if (session) await revokeGrant(c.get("db"), session.grantId);
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: secure(c) });
}

/**
 * CSRF token for the pages' forms: the cookie (SameSite=Strict, HttpOnly) holds a random nonce,
 * the form an HMAC of that nonce and of who is signed in. A cross-site form gets neither, and a
 * pair harvested by an attacker on their own visit is bound to their sign-in, not the victim's.
 */
export async function csrfToken(c: Context<AppEnv>, userId: number | undefined, freshNonce?: string): Promise<string> {
  let nonce = freshNonce ?? getCookie(c, CSRF_COOKIE);
  if (!nonce || nonce.length < 20) nonce = rotateCsrfNonce(c);
  return sign(c, nonce, userId);
}

/** A new nonce, set at sign-in so that tokens from before it stop working. */
export function rotateCsrfNonce(c: Context<AppEnv>): string {
  const nonce = randomToken(24);
  setCookie(c, CSRF_COOKIE, nonce, { httpOnly: true, sameSite: "Strict", path: "/", secure: secure(c) });
  return nonce;
}

export async function csrfValid(c: Context<AppEnv>, submitted: string | undefined, userId: number | undefined): Promise<boolean> {
  const nonce = getCookie(c, CSRF_COOKIE);
  if (!nonce || !submitted) return false;
  return constantTimeEqual(await sign(c, nonce, userId), submitted);
}

async function sign(c: Context<AppEnv>, nonce: string, userId: number | undefined): Promise<string> {
  const key = await crypto.subtle.importKey("raw", signingKey(c.get("config")), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const message = new TextEncoder().encode(`csrf:${nonce}:${userId ?? "anonymous"}`);
  return base64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, message)));
}

/**
 * Same-origin forms only: a foreign Origin (or a cross-site fetch) is refused before anything
 * else is read. Browsers send "Origin: null" in some privacy modes; then only their own
 * same-origin marker will do.
 */
export function sameOriginPost(c: Context<AppEnv>): boolean {
  const origin = c.req.header("Origin");
  const fetchSite = c.req.header("Sec-Fetch-Site");
  if (fetchSite && fetchSite !== "same-origin" && fetchSite !== "none") return false;
  if (origin === "null") return fetchSite === "same-origin";
  return !origin || origin === new URL(c.req.url).origin;
}
