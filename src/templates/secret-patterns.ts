import { findPlaceholders } from "../lib/template";

/**
 * How publishing recognises credentials: by the name they are stored under and by their look.
 * Every check here takes time linear in its input (a single scan, or a regex whose every
 * alternative starts with fixed text and cannot backtrack far), because workflows may hold
 * strings up to the request body limit.
 */

/** Words that make a field or parameter name a credential's (`accessToken`, `x-api-key`, `db_password`…). */
const SECRET_WORDS = new Set([
  "password",
  "passwd",
  "passphrase",
  "pass",
  "pwd",
  "secret",
  "secrets",
  "token",
  "apikey",
  "apitoken",
  "accesstoken",
  "refreshtoken",
  "authtoken",
  "idtoken",
  "privatekey",
  "accesskey",
  "secretkey",
  "authorization",
  "authorisation",
  "auth",
  "bearer",
  "jwt",
  "cookie",
  "credential",
  "credentials",
  "signature",
  "otp",
]);
/** Two adjacent words that name a credential together (`api_key`, `client-secret`, `sessionId`). */
const SECRET_PAIRS = new Set(["api key", "private key", "access key", "secret key", "client secret", "session id", "session key", "signing key"]);
/** Names that are credentials only in a query string (`?key=`, `?sig=`, `?code=` of an OAuth redirect). */
const SECRET_QUERY_NAMES = new Set(["key", "sig", "code"]);
const MAX_NAME_CHARS = 200;

const isUpper = (code: number) => code >= 65 && code <= 90;
const isLowerLetter = (code: number) => code >= 97 && code <= 122;
const isLowerOrDigit = (code: number) => isLowerLetter(code) || (code >= 48 && code <= 57);

/** Splits a name into lower-case words at separators and camelCase humps (`XAPIKey` → xapi, key; `accessToken` → access, token). */
export function nameWords(name: string): string[] {
  const text = name.length > MAX_NAME_CHARS ? name.slice(0, MAX_NAME_CHARS) : name;
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0;
    if (!isUpper(code) && !isLowerOrDigit(code)) {
      if (start >= 0) words.push(text.slice(start, i).toLowerCase());
      start = -1;
      continue;
    }
    // A capital starts a word after a lower-case letter, or ends an acronym before a lower-case one.
    const previous = text.charCodeAt(i - 1);
    const boundary = isUpper(code) && (isLowerOrDigit(previous) || (isUpper(previous) && isLowerLetter(text.charCodeAt(i + 1))));
    if (start >= 0 && boundary) {
      words.push(text.slice(start, i).toLowerCase());
      start = i;
    }
    if (start < 0) start = i;
  }
  return words;
}

/** Whether a field name says it holds a credential. `tokens_used` or `passenger` do not. */
export function isSecretName(name: string): boolean {
  const words = nameWords(name);
  return words.some((word, i) => SECRET_WORDS.has(word) || (i > 0 && SECRET_PAIRS.has(`${words[i - 1]} ${word}`)));
}

/** Whether a query or fragment parameter name looks like a credential's (`token`, `apiKey`, `subscription-key`, `sig`). */
export function isSecretQueryName(name: string): boolean {
  const lower = name.slice(0, MAX_NAME_CHARS).toLowerCase();
  return isSecretName(name) || SECRET_QUERY_NAMES.has(lower) || lower.endsWith("key");
}

/** The text with every `{{placeholder}}` taken out: what of it is literal. */
export function withoutPlaceholders(text: string): string {
  let rest = "";
  let from = 0;
  for (const found of findPlaceholders(text)) {
    rest += text.slice(from, found.start);
    from = found.end;
  }
  return rest + text.slice(from);
}

/**
 * Whether a value carries no literal secret: empty, placeholders only, or an auth scheme in
 * front of placeholders (`Bearer {{token}}`).
 */
export function holdsNoLiteral(text: string): boolean {
  const literal = withoutPlaceholders(text);
  return literal.length <= 40 && /^\s*(?:(?:bearer|basic|token|bot)\s*)?$/i.test(literal);
}

/** Values that are credentials whatever field holds them: bearer tokens, provider keys, JWTs. */
const CREDENTIAL_VALUE =
  /^(?:Bearer\s+\S+|Basic\s+\S+|ahk_(?:live|test)_\S+|ah[rsz]_\S+|whsec_\S+|sk-[A-Za-z0-9_-]{10,}|sk-ant-\S+|xox[abpr]-\S+|pat-\S+|re_[A-Za-z0-9_]{10,}|gh[pousr]_\S+|github_pat_\S+|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|eyJ[\w-]+\.[\w-]+\.[\w-]+)$/;

/**
 * Web addresses whose path is itself the credential: posting to them needs nothing else (Slack
 * and Teams incoming webhooks, Discord webhooks, Telegram bot URLs, Zapier and IFTTT hooks).
 */
const SECRET_URL =
  /^https?:\/\/(?:hooks\.slack\.com\/(?:services|workflows|triggers)\/|(?:[\w-]+\.)?discord(?:app)?\.com\/api\/(?:v\d+\/)?webhooks\/|api\.telegram\.org\/(?:file\/)?bot[^/{]|hooks\.zapier\.com\/hooks\/|maker\.ifttt\.com\/trigger\/|[\w-]+\.webhook\.office\.com\/|outlook\.office(?:365)?\.com\/webhook\/)/i;

/** Whether the whole value is a credential: a known token format or a URL that is a secret by itself. */
export function looksLikeCredential(text: string): boolean {
  const literal = text.trim();
  if (holdsNoLiteral(literal)) return false;
  // A webhook address with a placeholder in it is parameterised: its secret part comes from a variable.
  return CREDENTIAL_VALUE.test(literal) || (SECRET_URL.test(literal) && !literal.includes("{{"));
}

/**
 * Known token formats and secret webhook addresses inside longer text (`"Use key sk-… here"`,
 * `"Post to https://hooks.slack.com/services/…"`). Each alternative starts with a fixed prefix
 * and then one character class, so a scan is linear whatever the text holds.
 */
const EMBEDDED_CREDENTIAL =
  /\b(?:ahk_(?:live|test)_[\w-]+|ah[rsz]_[\w-]{16,}|whsec_[\w+/=-]+|sk-ant-[\w-]+|sk-[\w-]{20,}|xox[abpr]-[\w-]+|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w+|AKIA[0-9A-Z]{16}|https?:\/\/(?:hooks\.slack\.com\/(?:services|workflows|triggers)|(?:[\w-]+\.)?discord(?:app)?\.com\/api\/(?:v\d+\/)?webhooks|api\.telegram\.org\/(?:file\/)?bot|hooks\.zapier\.com\/hooks|maker\.ifttt\.com\/trigger|[\w-]+\.webhook\.office\.com|outlook\.office(?:365)?\.com\/webhook)[^\s"'<>`]*)/gi;

/** The text without credentials of a known format (a webhook address built from placeholders stays). */
export function removeEmbeddedCredentials(text: string): string {
  return text.replace(EMBEDDED_CREDENTIAL, (found) => (found.includes("{{") ? found : ""));
}
