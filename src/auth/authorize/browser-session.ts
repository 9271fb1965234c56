import type { Context } from "hono";
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import { SignJWT, jwtVerify } from "jose";
import type { AppEnv } from "../../http/app-env";
import { base64url, constantTimeEqual, randomToken } from "../../lib/crypto";
import { signingKey } from "../jwt";

const SESSION_COOKIE = "ahk_session";
const CSRF_COOKIE = "ahk_csrf";
const SESSION_TTL_SECONDS = 3600;

const secure = (c: Context<AppEnv>) => new URL(c.req.url).protocol === "https:";

/**
 * The authorize page's own sign-in, kept in an HttpOnly cookie scoped to /auth. It only lets the
 * person approve or deny apps; it is never accepted as an API credential (different audience).
 */
export async function startBrowserSession(c: Context<AppEnv>, userId: number): Promise<void> {
  const config = c.get("config");
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "session+jwt" })
    .setIssuer(config.jwtIssuer)
    .setAudience(`${config.jwtIssuer}/authorize`)
    .setSubject(String(userId))
    .setIssuedAt()
    .setExpirationTime(`${SESSION_TTL_SECONDS}s`)
    .sign(signingKey(config));
  setCookie(c, SESSION_COOKIE, token, { httpOnly: true, sameSite: "Lax", path: "/auth", secure: secure(c), maxAge: SESSION_TTL_SECONDS });
}

export async function browserSessionUser(c: Context<AppEnv>): Promise<number | undefined> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return undefined;
  const config = c.get("config");
  try {
    const { payload } = await jwtVerify(token, signingKey(config), {
      algorithms: ["HS256"],
      issuer: config.jwtIssuer,
      audience: `${config.jwtIssuer}/authorize`,
      typ: "session+jwt",
    });
    const id = Number(payload.sub);
    return Number.isInteger(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

export function endBrowserSession(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/auth", secure: secure(c) });
}

/**
 * CSRF token for the page's forms: the cookie (SameSite=Strict, HttpOnly) holds a random nonce,
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
  setCookie(c, CSRF_COOKIE, nonce, { httpOnly: true, sameSite: "Strict", path: "/auth", secure: secure(c) });
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
