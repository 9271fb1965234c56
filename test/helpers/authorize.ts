import { call, type TestUser } from "./api";

/** A tiny cookie jar for driving the authorize page's forms without a browser. */
export class CookieJar {
  private cookies = new Map<string, string>();
  store(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, ...value] = pair!.split("=");
      const expired = /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line);
      if (expired) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join("="));
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

export function csrfFrom(html: string): string {
  const match = html.match(/name="csrf_token" value="([^"]+)"/);
  if (!match) throw new Error(`no csrf token in page: ${html.slice(0, 300)}`);
  return match[1]!;
}

export async function pkcePair() {
  const verifier = Array.from(
    crypto.getRandomValues(new Uint8Array(48)),
    (b) => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"[b % 66],
  ).join("");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const challenge = btoa(String.fromCharCode(...digest))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
  return { verifier, challenge };
}

export function authorizeUrl(params: Record<string, string>) {
  return `/auth/authorize?${new URLSearchParams({ response_type: "code", ...params })}`;
}

/** Posts one of the page's forms back to the same URL, with the jar's cookies and a CSRF token. */
export async function postForm(url: string, jar: CookieJar, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await call(url, { form: fields, headers: { Cookie: jar.header(), ...headers } });
  jar.store(response);
  return response;
}

/** Opens the authorize page: its URL, the cookies it set, and the sign-in form's CSRF token. */
export async function openAuthorizePage(params: Record<string, string>) {
  const url = authorizeUrl(params);
  const jar = new CookieJar();
  const page = await call(url);
  jar.store(page);
  if (page.status !== 200) throw new Error(`authorize page: ${page.status} ${await page.text()}`);
  return { url, jar, csrf: csrfFrom(await page.text()) };
}

/**
 * Signs `user` in on the authorize page and presses Approve (or `step`), returning the response,
 * whose Location carries the code or the error.
 */
export async function authorizeAs(user: TestUser, params: Record<string, string>, step: "approve" | "deny" = "approve") {
  const { url, jar, csrf } = await openAuthorizePage(params);
  const consent = await postForm(url, jar, { csrf_token: csrf, step: "sign_in", email: user.email, password: user.password });
  if (consent.status !== 200) throw new Error(`sign in: ${consent.status} ${await consent.text()}`);
  return postForm(url, jar, { csrf_token: csrfFrom(await consent.text()), step });
}

/** Runs the whole consent flow and returns the code from the redirect. */
export async function obtainCode(user: TestUser, params: Record<string, string>): Promise<string> {
  const response = await authorizeAs(user, params);
  const location = response.headers.get("Location");
  if (response.status !== 302 || !location) throw new Error(`approve: ${response.status} ${await response.text()}`);
  const code = new URL(location).searchParams.get("code");
  if (!code) throw new Error(`no code in ${location}`);
  return code;
}
