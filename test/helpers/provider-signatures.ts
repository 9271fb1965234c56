// Requests signed the way each provider signs them, written from the providers' documentation
// with crypto.subtle and nothing from src/: the hub's verifiers are checked against these, so
// sharing code would let one mistake agree with itself.

export type SignedScheme = "stripe" | "github" | "slack" | "shopify" | "hubspot" | "typeform" | "token";

export interface SignedRequest {
  headers: Record<string, string>;
  body: string;
  /** The URL to post to, when the scheme signs or carries something in it (HubSpot, token via ?token=). */
  url?: string;
}

export interface SignInput {
  secret: string;
  body: string;
  /** Unix seconds (HubSpot: milliseconds); now when omitted. */
  timestamp?: number;
  /** The URL the request goes to: HubSpot signs it, the token scheme may carry the secret in it. */
  url?: string;
  method?: string;
  contentType?: string;
}

const encoder = new TextEncoder();

/** HMAC-SHA256 of `message` under `secret` (both UTF-8), as lower-case hex or padded base64. */
export async function hmac(secret: string, message: string, encoding: "hex" | "base64"): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
  if (encoding === "hex") return Array.from(mac, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return btoa(Array.from(mac, (byte) => String.fromCharCode(byte)).join(""));
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const json = "application/json";

/** Stripe: `t=<t>,v1=<hex HMAC of "<t>.<body>">`; `extraV1` adds more v1 entries before the right one, as during a secret roll. */
export async function signStripe(input: SignInput & { extraV1?: string[] }): Promise<SignedRequest> {
  const t = input.timestamp ?? nowSeconds();
  const v1 = await hmac(input.secret, `${t}.${input.body}`, "hex");
  const entries = [`t=${t}`, ...(input.extraV1 ?? []).map((sig) => `v1=${sig}`), `v1=${v1}`];
  return { body: input.body, headers: { "Content-Type": input.contentType ?? json, "Stripe-Signature": entries.join(",") } };
}

/** GitHub: `sha256=<hex HMAC of the body>`, with the event name and a delivery id. */
export async function signGithub(input: SignInput & { event?: string; delivery?: string }): Promise<SignedRequest> {
  return {
    body: input.body,
    headers: {
      "Content-Type": input.contentType ?? json,
      "X-GitHub-Event": input.event ?? "push",
      "X-GitHub-Delivery": input.delivery ?? crypto.randomUUID(),
      "X-Hub-Signature-256": `sha256=${await hmac(input.secret, input.body, "hex")}`,
    },
  };
}

/** Slack: `v0=<hex HMAC of "v0:<timestamp>:<body>">` and the timestamp header. */
export async function signSlack(input: SignInput): Promise<SignedRequest> {
  const t = input.timestamp ?? nowSeconds();
  return {
    body: input.body,
    headers: {
      "Content-Type": input.contentType ?? json,
      "X-Slack-Request-Timestamp": String(t),
      "X-Slack-Signature": `v0=${await hmac(input.secret, `v0:${t}:${input.body}`, "hex")}`,
    },
  };
}

/** Shopify: base64 HMAC of the body, with the topic and the ids Shopify sends alongside. */
export async function signShopify(input: SignInput & { topic?: string; webhookId?: string; eventId?: string }): Promise<SignedRequest> {
  return {
    body: input.body,
    headers: {
      "Content-Type": input.contentType ?? json,
      "X-Shopify-Topic": input.topic ?? "orders/create",
      "X-Shopify-Webhook-Id": input.webhookId ?? crypto.randomUUID(),
      "X-Shopify-Event-Id": input.eventId ?? crypto.randomUUID(),
      "X-Shopify-Shop-Domain": "example.myshopify.com",
      "X-Shopify-Hmac-Sha256": await hmac(input.secret, input.body, "base64"),
    },
  };
}

// HubSpot's "Validating requests" guide (v3): these percent-encodings are decoded in the URL
// before it is signed.
const HUBSPOT_DECODES: [string, string][] = [
  ["%3A", ":"],
  ["%2F", "/"],
  ["%3F", "?"],
  ["%40", "@"],
  ["%21", "!"],
  ["%24", "$"],
  ["%27", "'"],
  ["%28", "("],
  ["%29", ")"],
  ["%2A", "*"],
  ["%2C", ","],
  ["%3B", ";"],
];

export function hubspotDecodedUri(url: string): string {
  let out = "";
  for (let i = 0; i < url.length; i++) {
    const code = url.slice(i, i + 3).toUpperCase();
    const decoded = url[i] === "%" ? HUBSPOT_DECODES.find(([encoded]) => encoded === code)?.[1] : undefined;
    if (decoded !== undefined) {
      out += decoded;
      i += 2;
    } else out += url[i];
  }
  return out;
}

/** HubSpot v3: base64 HMAC of method + decoded URL + body + timestamp (milliseconds). */
export async function signHubspot(input: SignInput & { url: string }): Promise<SignedRequest> {
  const t = input.timestamp ?? Date.now();
  const method = input.method ?? "POST";
  const signature = await hmac(input.secret, `${method}${hubspotDecodedUri(input.url)}${input.body}${t}`, "base64");
  return {
    body: input.body,
    url: input.url,
    headers: { "Content-Type": input.contentType ?? json, "X-HubSpot-Request-Timestamp": String(t), "X-HubSpot-Signature-v3": signature },
  };
}

/** Typeform: `sha256=<base64 HMAC of the body>`. */
export async function signTypeform(input: SignInput): Promise<SignedRequest> {
  return {
    body: input.body,
    headers: { "Content-Type": input.contentType ?? json, "Typeform-Signature": `sha256=${await hmac(input.secret, input.body, "base64")}` },
  };
}

/** The secret itself: as a Bearer token, or in `?token=` on `url` for senders that only take a URL. */
export function signToken(input: SignInput & { via?: "header" | "query" }): SignedRequest {
  const headers: Record<string, string> = { "Content-Type": input.contentType ?? json };
  if (input.via === "query") {
    if (!input.url) throw new Error("signToken via query needs the URL to post to.");
    const url = new URL(input.url);
    url.searchParams.set("token", input.secret);
    return { body: input.body, headers, url: url.toString() };
  }
  return { body: input.body, headers: { ...headers, Authorization: `Bearer ${input.secret}` }, url: input.url };
}

/** Any scheme by name, with its defaults (GitHub `push`, Shopify `orders/create`, the token as a header). */
export async function signAs(scheme: SignedScheme, input: SignInput): Promise<SignedRequest> {
  switch (scheme) {
    case "stripe":
      return signStripe(input);
    case "github":
      return signGithub(input);
    case "slack":
      return signSlack(input);
    case "shopify":
      return signShopify(input);
    case "hubspot":
      if (!input.url) throw new Error("HubSpot signs the URL: pass the URL the request goes to.");
      return signHubspot({ ...input, url: input.url });
    case "typeform":
      return signTypeform(input);
    case "token":
      return signToken(input);
  }
}
