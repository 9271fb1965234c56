import { describe, expect, it } from "vitest";
import { type InboundDelivery, type ProviderScheme, type SchemeOutcome, verifyProviderDelivery } from "../../src/agents/webhook-schemes";
import { hmacBase64, hmacHex, hmacSha256 } from "../../src/lib/hmac";
import {
  type SignedRequest,
  hmac,
  signAs,
  signGithub,
  signHubspot,
  signShopify,
  signSlack,
  signStripe,
  signToken,
  signTypeform,
} from "../helpers/provider-signatures";

const SECRET = "whsec_test_0123456789abcdef";
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const T = NOW / 1000;
const HOOK_URL = "https://hub.example/v1/hooks/agents/agt_123";

function delivery(signed: SignedRequest, changes: Partial<InboundDelivery> = {}): InboundDelivery {
  return { method: "POST", url: signed.url ?? HOOK_URL, headers: new Headers(signed.headers), rawBody: signed.body, ...changes };
}

/** The same request with one header changed (or removed, with null). */
function withHeader(signed: SignedRequest, name: string, value: string | null): InboundDelivery {
  const headers = new Headers(signed.headers);
  if (value === null) headers.delete(name);
  else headers.set(name, value);
  return delivery(signed, { headers });
}

const verify = (scheme: ProviderScheme, d: InboundDelivery, now = NOW, secret = SECRET) => verifyProviderDelivery(scheme, secret, d, now);

function expectRejected(outcome: SchemeOutcome, reason: string) {
  expect(outcome).toEqual({ kind: "rejected", reason });
}

describe("hmac helpers", () => {
  it('match RFC 4231 test case 2 (key "Jefe") in bytes, hex and base64', async () => {
    const hex = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    expect(await hmacHex("Jefe", "what do ya want for nothing?")).toBe(hex);
    const bytes = await hmacSha256("Jefe", "what do ya want for nothing?");
    expect(Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")).toBe(hex);
    expect(await hmacBase64("Jefe", "what do ya want for nothing?")).toBe(btoa(String.fromCharCode(...bytes)));
    expect(await hmacBase64("Jefe", "what do ya want for nothing?")).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it("key and message are UTF-8", async () => {
    expect(await hmacHex("clé", "café ☕")).toBe(await hmac("clé", "café ☕", "hex"));
    expect(await hmacBase64("clé", "café ☕")).toBe(await hmac("clé", "café ☕", "base64"));
  });
});

describe("every scheme", () => {
  const schemes: ProviderScheme[] = ["stripe", "github", "slack", "shopify", "hubspot", "typeform", "token"];
  const body = JSON.stringify({ id: "evt_1", type: "thing.happened", event_id: "Ev1", event_type: "form_response" });

  it("refuses when the agent has no secret", async () => {
    for (const scheme of schemes) {
      const signed = await signAs(scheme, { secret: SECRET, body, timestamp: scheme === "hubspot" ? NOW : T, url: HOOK_URL });
      expectRejected(await verify(scheme, delivery(signed), NOW, ""), "No webhook secret is set for this agent.");
    }
  });

  it("refuses an unknown scheme name rather than throwing", async () => {
    const signed = await signStripe({ secret: SECRET, body, timestamp: T });
    expectRejected(await verify("toString" as ProviderScheme, delivery(signed)), "This agent's webhook verification scheme is unknown.");
  });

  it("accepts its own provider's signature and nobody else's", async () => {
    for (const scheme of schemes) {
      const signed = await signAs(scheme, { secret: SECRET, body, timestamp: scheme === "hubspot" ? NOW : T, url: HOOK_URL });
      expect((await verify(scheme, delivery(signed))).kind).toBe("event");
      for (const other of schemes.filter((s) => s !== scheme)) expect((await verify(other, delivery(signed))).kind).toBe("rejected");
    }
  });

  it("never put the secret or the expected signature in a reason", async () => {
    const expectedHex = await hmac(SECRET, `${T}.${body}`, "hex");
    const expectedBase64 = await hmac(SECRET, body, "base64");
    const bad = [
      ["stripe", await signStripe({ secret: "other", body, timestamp: T })],
      ["github", await signGithub({ secret: "other", body })],
      ["slack", await signSlack({ secret: "other", body, timestamp: T })],
      ["shopify", await signShopify({ secret: "other", body })],
      ["hubspot", await signHubspot({ secret: "other", body, timestamp: NOW, url: HOOK_URL })],
      ["typeform", await signTypeform({ secret: "other", body })],
      ["token", signToken({ secret: "other", body })],
    ] as const;
    for (const [scheme, signed] of bad) {
      const outcome = await verify(scheme, delivery(signed));
      expect(outcome.kind).toBe("rejected");
      const reason = outcome.kind === "rejected" ? outcome.reason : "";
      for (const leak of [SECRET, expectedHex, expectedBase64, await hmac(SECRET, body, "hex")]) expect(reason).not.toContain(leak);
    }
  });

  it("refuse a signature header longer than 8 KB without reading it", async () => {
    const long = `sha256=${"a".repeat(9000)}`;
    const signed = await signGithub({ secret: SECRET, body });
    expectRejected(await verify("github", withHeader(signed, "X-Hub-Signature-256", long)), "X-Hub-Signature-256 is longer than 8 KB.");
    const stripe = await signStripe({ secret: SECRET, body, timestamp: T });
    expectRejected(await verify("stripe", withHeader(stripe, "Stripe-Signature", `t=${T},${"v1=ab,".repeat(2000)}`)), "Stripe-Signature is longer than 8 KB.");
    const token = signToken({ secret: SECRET, body });
    expectRejected(await verify("token", withHeader(token, "Authorization", `Bearer ${"x".repeat(9000)}`)), "Authorization is longer than 8 KB.");
  });
});

describe("stripe", () => {
  const body = JSON.stringify({ id: "evt_1NG8Du2eZvKYlo2CUI79vXWy", object: "event", type: "invoice.paid", data: { object: { id: "in_1" } } });

  it('accepts t=…,v1=… over "<t>.<body>" and reads id and type from the body', async () => {
    const outcome = await verify("stripe", delivery(await signStripe({ secret: SECRET, body, timestamp: T })));
    expect(outcome).toEqual({ kind: "event", event: JSON.parse(body), eventId: "evt_1NG8Du2eZvKYlo2CUI79vXWy", eventType: "invoice.paid" });
  });

  it("accepts any matching v1 among several (a secret being rolled), and upper-case hex", async () => {
    const signed = await signStripe({ secret: SECRET, body, timestamp: T, extraV1: ["0".repeat(64), await hmac("old-secret", `${T}.${body}`, "hex")] });
    expect((await verify("stripe", delivery(signed))).kind).toBe("event");
    const v1 = await hmac(SECRET, `${T}.${body}`, "hex");
    const upper = withHeader(signed, "Stripe-Signature", `t=${T},v1=${v1.toUpperCase()}`);
    expect((await verify("stripe", upper)).kind).toBe("event");
  });

  it("considers at most 10 v1 entries", async () => {
    const nine = Array.from({ length: 9 }, (_, i) => String(i).repeat(64));
    expect((await verify("stripe", delivery(await signStripe({ secret: SECRET, body, timestamp: T, extraV1: nine })))).kind).toBe("event");
    const ten = [...nine, "f".repeat(64)];
    expectRejected(
      await verify("stripe", delivery(await signStripe({ secret: SECRET, body, timestamp: T, extraV1: ten }))),
      "No v1 signature in Stripe-Signature matches the body.",
    );
  });

  it("ignores v0 (Stripe's test-mode scheme) and other schemes", async () => {
    const v1 = await hmac(SECRET, `${T}.${body}`, "hex");
    const signed = await signStripe({ secret: SECRET, body, timestamp: T });
    expectRejected(await verify("stripe", withHeader(signed, "Stripe-Signature", `t=${T},v0=${v1}`)), "Stripe-Signature has no v1 signature.");
    expectRejected(await verify("stripe", withHeader(signed, "Stripe-Signature", `t=${T},v2=${v1}`)), "Stripe-Signature has no v1 signature.");
    expect((await verify("stripe", withHeader(signed, "Stripe-Signature", `t=${T},v0=${"0".repeat(64)},v1=${v1}`))).kind).toBe("event");
  });

  it("refuses a wrong secret, a tampered body, a missing or malformed header", async () => {
    const mismatch = "No v1 signature in Stripe-Signature matches the body.";
    expectRejected(await verify("stripe", delivery(await signStripe({ secret: "whsec_other", body, timestamp: T }))), mismatch);
    const signed = await signStripe({ secret: SECRET, body, timestamp: T });
    expectRejected(await verify("stripe", delivery(signed, { rawBody: body.replace("invoice.paid", "invoice.voided") })), mismatch);
    expectRejected(await verify("stripe", withHeader(signed, "Stripe-Signature", null)), "Stripe-Signature is missing.");
    expectRejected(await verify("stripe", withHeader(signed, "Stripe-Signature", "garbage")), "Stripe-Signature has no t= timestamp.");
    expectRejected(await verify("stripe", withHeader(signed, "Stripe-Signature", `t=${T}`)), "Stripe-Signature has no v1 signature.");
    expectRejected(await verify("stripe", withHeader(signed, "Stripe-Signature", `t=${T},t=${T},v1=ab`)), "Stripe-Signature has more than one t= timestamp.");
    expectRejected(await verify("stripe", withHeader(signed, "Stripe-Signature", "t=soon,v1=ab")), "The Stripe-Signature timestamp must be unix seconds.");
  });

  it("allows 5 minutes of clock difference either way, not more", async () => {
    const signed = await signStripe({ secret: SECRET, body, timestamp: T });
    expect((await verify("stripe", delivery(signed), NOW + 300_000)).kind).toBe("event");
    expect((await verify("stripe", delivery(signed), NOW - 300_000)).kind).toBe("event");
    const stale = "The Stripe-Signature timestamp is more than 5 minutes off.";
    expectRejected(await verify("stripe", delivery(signed), NOW + 301_000), stale);
    expectRejected(await verify("stripe", delivery(signed), NOW - 301_000), stale);
  });

  it("verifies before parsing: a signed body that is not JSON is refused as such", async () => {
    expectRejected(await verify("stripe", delivery(await signStripe({ secret: SECRET, body: "not json", timestamp: T }))), "The body must be JSON.");
    // Unsigned junk is refused for its signature, never parsed.
    const signed = await signStripe({ secret: SECRET, body, timestamp: T });
    expectRejected(await verify("stripe", delivery(signed, { rawBody: "not json" })), "No v1 signature in Stripe-Signature matches the body.");
  });
});

describe("github", () => {
  const body = JSON.stringify({ action: "opened", number: 7, repository: { full_name: "octo/hello" } });

  it('matches GitHub\'s published test values (secret "It\'s a Secret to Everybody", payload "Hello, World!")', async () => {
    // docs.github.com, "Validating webhook deliveries" → "Testing the webhook payload validation".
    const published = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    const secret = "It's a Secret to Everybody";
    expect(`sha256=${await hmacHex(secret, "Hello, World!")}`).toBe(published);
    const signed = await signGithub({ secret, body: "Hello, World!", event: "ping", delivery: "d-1" });
    expect(signed.headers["X-Hub-Signature-256"]).toBe(published);
    const request = { method: "POST", url: HOOK_URL, rawBody: "Hello, World!" };
    const headers = (event: string) => new Headers({ "X-Hub-Signature-256": published, "X-GitHub-Event": event, "X-GitHub-Delivery": "d-1" });
    // Verified: a ping is answered; any other event then needs a JSON body, which this is not.
    expect(await verifyProviderDelivery("github", secret, { ...request, headers: headers("ping") }, NOW)).toEqual({
      kind: "reply",
      body: { ok: true, event: "ping" },
      // Remembered like any body, so the ping cannot come back as another event.
      bodyMac: published.slice("sha256=".length),
      eventType: "ping",
    });
    expectRejected(await verifyProviderDelivery("github", secret, { ...request, headers: headers("push") }, NOW), "The body must be JSON.");
    expectRejected(
      await verifyProviderDelivery("github", "It's a secret to everybody", { ...request, headers: headers("push") }, NOW),
      "X-Hub-Signature-256 does not match the body.",
    );
  });

  it("accepts sha256=<hex> of the body; id and type from X-GitHub-Delivery and X-GitHub-Event", async () => {
    const signed = await signGithub({ secret: SECRET, body, event: "pull_request", delivery: "72d3162e-cc78-11e3-81ab-4c9367dc0958" });
    expect(await verify("github", delivery(signed))).toEqual({
      kind: "event",
      event: JSON.parse(body),
      eventId: "72d3162e-cc78-11e3-81ab-4c9367dc0958",
      eventType: "pull_request",
      // The id and type headers are not signed: a delivery is the same one again by its body's MAC.
      replayKey: `mac:${signed.headers["X-Hub-Signature-256"]!.slice("sha256=".length)}`,
      bodyMac: signed.headers["X-Hub-Signature-256"]!.slice("sha256=".length),
    });
    const sig = signed.headers["X-Hub-Signature-256"]!;
    // Every spelling of the signature is the same key.
    expect(await verify("github", withHeader(signed, "X-Hub-Signature-256", sig.toUpperCase()))).toMatchObject({
      kind: "event",
      replayKey: `mac:${sig.slice("sha256=".length)}`,
      bodyMac: sig.slice("sha256=".length),
    });
  });

  it("answers a verified ping without a run, and refuses an unverified one", async () => {
    const ping = JSON.stringify({ zen: "Design for failure.", hook_id: 12 });
    const signedPing = await signGithub({ secret: SECRET, body: ping, event: "ping" });
    expect(await verify("github", delivery(signedPing))).toEqual({
      kind: "reply",
      body: { ok: true, event: "ping" },
      bodyMac: signedPing.headers["X-Hub-Signature-256"]!.slice("sha256=".length),
      eventType: "ping",
    });
    expectRejected(
      await verify("github", delivery(await signGithub({ secret: "other", body: ping, event: "ping" }))),
      "X-Hub-Signature-256 does not match the body.",
    );
  });

  it("reads the payload field of a form-encoded delivery", async () => {
    const form = `payload=${encodeURIComponent(body)}`;
    const signed = await signGithub({ secret: SECRET, body: form, event: "issues", contentType: "application/x-www-form-urlencoded" });
    expect(await verify("github", delivery(signed))).toMatchObject({ kind: "event", event: JSON.parse(body), eventType: "issues" });
    const empty = await signGithub({ secret: SECRET, body: "other=1", contentType: "application/x-www-form-urlencoded" });
    expectRejected(await verify("github", delivery(empty)), "The form body has no payload field.");
  });

  it("refuses a wrong secret, a tampered body, a missing or malformed header", async () => {
    const mismatch = "X-Hub-Signature-256 does not match the body.";
    expectRejected(await verify("github", delivery(await signGithub({ secret: "other", body }))), mismatch);
    const signed = await signGithub({ secret: SECRET, body });
    expectRejected(await verify("github", delivery(signed, { rawBody: `${body} ` })), mismatch);
    expectRejected(await verify("github", withHeader(signed, "X-Hub-Signature-256", null)), "X-Hub-Signature-256 is missing.");
    const malformed = "X-Hub-Signature-256 must be sha256=<64 hex digits>.";
    const hex = signed.headers["X-Hub-Signature-256"]!.slice(7);
    expectRejected(await verify("github", withHeader(signed, "X-Hub-Signature-256", hex)), malformed);
    expectRejected(await verify("github", withHeader(signed, "X-Hub-Signature-256", `sha1=${hex.slice(0, 40)}`)), malformed);
    expectRejected(await verify("github", withHeader(signed, "X-Hub-Signature-256", `sha256=${hex.slice(1)}`)), malformed);
  });
});

describe("slack", () => {
  it("matches Slack's published example (a slash command, form-encoded)", async () => {
    // docs.slack.dev, "Verifying requests from Slack"; the same values are in slackapi/python-slack-sdk's tests.
    const secret = "8f742231b10e8888abcd99yyyzzz85a5";
    const timestamp = 1531420618;
    const body =
      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    const published = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
    const signed = await signSlack({ secret, body, timestamp, contentType: "application/x-www-form-urlencoded" });
    expect(signed.headers["X-Slack-Signature"]).toBe(published);
    const headers = new Headers({
      "Content-Type": "application/x-www-form-urlencoded",
      "X-Slack-Request-Timestamp": String(timestamp),
      "X-Slack-Signature": published,
    });
    const outcome = await verifyProviderDelivery("slack", secret, { method: "POST", url: HOOK_URL, headers, rawBody: body }, timestamp * 1000);
    // No event id: the request is the same one again by its signature, which covers the timestamp.
    expect(outcome).toMatchObject({ kind: "event", eventId: null, eventType: "/webhook-collect", replayKey: `mac:${published.slice(3)}` });
    expect(outcome.kind === "event" && outcome.event).toMatchObject({ command: "/webhook-collect", team_domain: "testteamnow", text: "" });
    // The same request a day later is stale.
    expectRejected(
      await verifyProviderDelivery("slack", secret, { method: "POST", url: HOOK_URL, headers, rawBody: body }, (timestamp + 86_400) * 1000),
      "X-Slack-Request-Timestamp is more than 5 minutes off.",
    );
  });

  const body = JSON.stringify({
    token: "XXYYZZ",
    team_id: "T123",
    type: "event_callback",
    event: { type: "app_mention", user: "U1", text: "hi", ts: "1.2" },
    event_id: "Ev08MFMKH6",
    event_time: 1234567890,
  });

  it("accepts an Events API envelope; id is event_id, type is event.type", async () => {
    expect(await verify("slack", delivery(await signSlack({ secret: SECRET, body, timestamp: T })))).toEqual({
      kind: "event",
      event: JSON.parse(body),
      eventId: "Ev08MFMKH6",
      eventType: "app_mention",
    });
    const rateLimited = JSON.stringify({ token: "x", type: "app_rate_limited", team_id: "T1", minute_rate_limited: 1518467820 });
    const signedLimited = await signSlack({ secret: SECRET, body: rateLimited, timestamp: T });
    expect(await verify("slack", delivery(signedLimited))).toMatchObject({
      eventId: null,
      eventType: "app_rate_limited",
      replayKey: `mac:${signedLimited.headers["X-Slack-Signature"]!.slice(3)}`,
    });
  });

  it("answers a verified url_verification with its challenge, without a run", async () => {
    const challenge = JSON.stringify({
      token: "Jhj5dZrVaK7ZwHHjRyZWjbDl",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
      type: "url_verification",
    });
    expect(await verify("slack", delivery(await signSlack({ secret: SECRET, body: challenge, timestamp: T })))).toEqual({
      kind: "reply",
      body: { challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" },
    });
    expectRejected(
      await verify("slack", delivery(await signSlack({ secret: "other", body: challenge, timestamp: T }))),
      "X-Slack-Signature does not match the body.",
    );
    const numeric = JSON.stringify({ type: "url_verification", challenge: 42 });
    expectRejected(
      await verify("slack", delivery(await signSlack({ secret: SECRET, body: numeric, timestamp: T }))),
      "The url_verification challenge must be a string.",
    );
  });

  it("reads an interactivity payload field as JSON, typed by payload.type", async () => {
    const payload = { type: "block_actions", user: { id: "U1" }, actions: [{ action_id: "approve" }] };
    const form = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
    const signed = await signSlack({ secret: SECRET, body: form, timestamp: T, contentType: "application/x-www-form-urlencoded; charset=utf-8" });
    expect(await verify("slack", delivery(signed))).toEqual({
      kind: "event",
      event: payload,
      eventId: null,
      eventType: "block_actions",
      replayKey: `mac:${signed.headers["X-Slack-Signature"]!.slice(3)}`,
    });
    const broken = await signSlack({ secret: SECRET, body: "payload=%7Bnot", timestamp: T, contentType: "application/x-www-form-urlencoded" });
    expectRejected(await verify("slack", delivery(broken)), "The payload field must be JSON.");
  });

  it("refuses a wrong secret, a tampered body, missing or malformed headers", async () => {
    const mismatch = "X-Slack-Signature does not match the body.";
    expectRejected(await verify("slack", delivery(await signSlack({ secret: "other", body, timestamp: T }))), mismatch);
    const signed = await signSlack({ secret: SECRET, body, timestamp: T });
    expectRejected(await verify("slack", delivery(signed, { rawBody: body.replace("hi", "ho") })), mismatch);
    // The timestamp is signed too: moving it inside the window still breaks the signature.
    expectRejected(await verify("slack", withHeader(signed, "X-Slack-Request-Timestamp", String(T + 1))), mismatch);
    expectRejected(await verify("slack", withHeader(signed, "X-Slack-Signature", null)), "X-Slack-Signature is missing.");
    expectRejected(await verify("slack", withHeader(signed, "X-Slack-Request-Timestamp", null)), "X-Slack-Request-Timestamp is missing.");
    const sig = signed.headers["X-Slack-Signature"]!;
    expectRejected(await verify("slack", withHeader(signed, "X-Slack-Signature", sig.replace("v0=", "v1="))), "X-Slack-Signature must be v0=<64 hex digits>.");
    expectRejected(await verify("slack", withHeader(signed, "X-Slack-Request-Timestamp", "yesterday")), "X-Slack-Request-Timestamp must be unix seconds.");
  });

  it("refuses a timestamp more than 5 minutes off, either way", async () => {
    const stale = "X-Slack-Request-Timestamp is more than 5 minutes off.";
    expectRejected(await verify("slack", delivery(await signSlack({ secret: SECRET, body, timestamp: T - 301 }))), stale);
    expectRejected(await verify("slack", delivery(await signSlack({ secret: SECRET, body, timestamp: T + 301 }))), stale);
    expect((await verify("slack", delivery(await signSlack({ secret: SECRET, body, timestamp: T - 300 })))).kind).toBe("event");
  });
});

describe("shopify", () => {
  const body = JSON.stringify({ id: 820982911946154500, email: "jon@example.com", total_price: "403.00" });

  it("accepts a base64 HMAC of the body; id is X-Shopify-Webhook-Id, type is X-Shopify-Topic", async () => {
    const signed = await signShopify({ secret: SECRET, body, topic: "orders/paid", webhookId: "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043", eventId: "ev-9" });
    expect(await verify("shopify", delivery(signed))).toEqual({
      kind: "event",
      event: JSON.parse(body),
      eventId: "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043",
      eventType: "orders/paid",
      replayKey: `mac:${signed.headers["X-Shopify-Hmac-Sha256"]}`,
      bodyMac: signed.headers["X-Shopify-Hmac-Sha256"],
    });
    const headers = new Headers(signed.headers);
    headers.delete("X-Shopify-Webhook-Id");
    expect(await verify("shopify", delivery(signed, { headers }))).toMatchObject({ eventId: "ev-9" });
    headers.delete("X-Shopify-Event-Id");
    headers.delete("X-Shopify-Topic");
    expect(await verify("shopify", delivery(signed, { headers }))).toMatchObject({ kind: "event", eventId: null, eventType: null });
  });

  it("refuses a wrong secret, a tampered body, a missing or malformed header", async () => {
    const mismatch = "X-Shopify-Hmac-Sha256 does not match the body.";
    expectRejected(await verify("shopify", delivery(await signShopify({ secret: "other", body }))), mismatch);
    const signed = await signShopify({ secret: SECRET, body });
    expectRejected(await verify("shopify", delivery(signed, { rawBody: body.replace("403", "4") })), mismatch);
    expectRejected(await verify("shopify", withHeader(signed, "X-Shopify-Hmac-Sha256", null)), "X-Shopify-Hmac-Sha256 is missing.");
    const malformed = "X-Shopify-Hmac-Sha256 must be a base64 HMAC-SHA256 (44 characters).";
    const hex = await hmac(SECRET, body, "hex");
    expectRejected(await verify("shopify", withHeader(signed, "X-Shopify-Hmac-Sha256", hex)), malformed);
    expectRejected(await verify("shopify", withHeader(signed, "X-Shopify-Hmac-Sha256", `sha256=${signed.headers["X-Shopify-Hmac-Sha256"]}`)), malformed);
  });

  it("verifies before parsing", async () => {
    expectRejected(await verify("shopify", delivery(await signShopify({ secret: SECRET, body: "<order/>" }))), "The body must be JSON.");
  });
});

describe("hubspot", () => {
  const events = [
    { eventId: 100, subscriptionId: 1, portalId: 62515, occurredAt: NOW - 1000, subscriptionType: "contact.creation", objectId: 123 },
    { eventId: 42, subscriptionId: 1, portalId: 62515, occurredAt: NOW - 900, subscriptionType: "contact.propertyChange", objectId: 124 },
  ];
  const body = JSON.stringify(events);

  it("accepts a v3 signature over method + URL + body + timestamp (ms); the event is the array", async () => {
    const single = JSON.stringify([events[0]]);
    expect(await verify("hubspot", delivery(await signHubspot({ secret: SECRET, body: single, timestamp: NOW, url: HOOK_URL })))).toEqual({
      kind: "event",
      event: [events[0]],
      eventId: "100",
      eventType: "contact.creation",
    });
    // Several events: their ids sorted, so the same batch retried has the same id.
    expect(await verify("hubspot", delivery(await signHubspot({ secret: SECRET, body, timestamp: NOW, url: HOOK_URL })))).toMatchObject({
      eventId: "100,42",
      eventType: "contact.creation",
    });
  });

  it("hashes a long batch id to a short one, and has none when an event lacks its eventId", async () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ eventId: 1_000_000 + i, subscriptionType: "deal.creation" }));
    const outcome = await verify("hubspot", delivery(await signHubspot({ secret: SECRET, body: JSON.stringify(many), timestamp: NOW, url: HOOK_URL })));
    expect(outcome).toMatchObject({ kind: "event", eventId: expect.stringMatching(/^batch-[0-9a-f]{32}$/), eventType: "deal.creation" });
    const reordered = await verify(
      "hubspot",
      delivery(await signHubspot({ secret: SECRET, body: JSON.stringify([...many].reverse()), timestamp: NOW, url: HOOK_URL })),
    );
    expect(reordered.kind === "event" && reordered.eventId).toBe(outcome.kind === "event" && outcome.eventId);
    const partial = JSON.stringify([events[0], { subscriptionType: "contact.deletion" }]);
    expect(await verify("hubspot", delivery(await signHubspot({ secret: SECRET, body: partial, timestamp: NOW, url: HOOK_URL })))).toMatchObject({
      eventId: null,
      eventType: "contact.creation",
    });
  });

  it("signs the URL as sent, query string included", async () => {
    const url = `${HOOK_URL}?portal=62515&source=crm`;
    const signed = await signHubspot({ secret: SECRET, body, timestamp: NOW, url });
    expect((await verify("hubspot", delivery(signed))).kind).toBe("event");
    const mismatch = "X-HubSpot-Signature-v3 does not match the request (method, URL, body and timestamp).";
    expectRejected(await verify("hubspot", delivery(signed, { url: HOOK_URL })), mismatch);
    expectRejected(await verify("hubspot", delivery(signed, { url: `${HOOK_URL}?source=crm&portal=62515` })), mismatch);
    expectRejected(await verify("hubspot", delivery(signed, { url: url.replace("https:", "http:") })), mismatch);
    expectRejected(await verify("hubspot", delivery(signed, { method: "PUT" })), mismatch);
  });

  it("decodes the characters HubSpot's guide lists before verifying, and no others", async () => {
    const url = `${HOOK_URL}?next=https%3A%2F%2Fapp.example%2Fa%2Cb%3Bc%40d%21e%24f%27g%28h%29i%2Aj%3Fk&space=a%20b`;
    // Written out by hand from the guide's table, not by the helper: %20 stays encoded.
    const decoded = `${HOOK_URL}?next=https://app.example/a,b;c@d!e$f'g(h)i*j?k&space=a%20b`;
    const t = String(NOW);
    const headers = new Headers({ "X-HubSpot-Request-Timestamp": t, "X-HubSpot-Signature-v3": await hmac(SECRET, `POST${decoded}${body}${t}`, "base64") });
    expect((await verify("hubspot", { method: "POST", url, headers, rawBody: body })).kind).toBe("event");
    // Percent-encodings are case-insensitive.
    const lowerCodes = url.replace(/%[0-9A-F]{2}/g, (code) => code.toLowerCase());
    expect((await verify("hubspot", { method: "POST", url: lowerCodes, headers, rawBody: body })).kind).toBe("event");
    // The helper signs the same way.
    expect((await verify("hubspot", delivery(await signHubspot({ secret: SECRET, body, timestamp: NOW, url })))).kind).toBe("event");
  });

  it("refuses a wrong secret, a tampered body, missing or malformed headers", async () => {
    const mismatch = "X-HubSpot-Signature-v3 does not match the request (method, URL, body and timestamp).";
    expectRejected(await verify("hubspot", delivery(await signHubspot({ secret: "other", body, timestamp: NOW, url: HOOK_URL }))), mismatch);
    const signed = await signHubspot({ secret: SECRET, body, timestamp: NOW, url: HOOK_URL });
    expectRejected(await verify("hubspot", delivery(signed, { rawBody: body.replace("42", "43") })), mismatch);
    expectRejected(await verify("hubspot", withHeader(signed, "X-HubSpot-Request-Timestamp", String(NOW + 1))), mismatch);
    expectRejected(await verify("hubspot", withHeader(signed, "X-HubSpot-Signature-v3", null)), "X-HubSpot-Signature-v3 is missing.");
    expectRejected(await verify("hubspot", withHeader(signed, "X-HubSpot-Request-Timestamp", null)), "X-HubSpot-Request-Timestamp is missing.");
    const hex = await hmac(SECRET, "x", "hex");
    expectRejected(
      await verify("hubspot", withHeader(signed, "X-HubSpot-Signature-v3", hex)),
      "X-HubSpot-Signature-v3 must be a base64 HMAC-SHA256 (44 characters).",
    );
    expectRejected(
      await verify("hubspot", withHeader(signed, "X-HubSpot-Request-Timestamp", "1.5e12")),
      "X-HubSpot-Request-Timestamp must be unix milliseconds.",
    );
    expectRejected(await verify("hubspot", delivery(signed, { url: `${HOOK_URL}?q=${"a".repeat(9000)}` })), "The request URL is longer than 8 KB.");
  });

  it("reads the timestamp as milliseconds, 5 minutes either way", async () => {
    const stale = "X-HubSpot-Request-Timestamp is more than 5 minutes off.";
    expectRejected(await verify("hubspot", delivery(await signHubspot({ secret: SECRET, body, timestamp: NOW - 300_001, url: HOOK_URL }))), stale);
    expectRejected(await verify("hubspot", delivery(await signHubspot({ secret: SECRET, body, timestamp: NOW + 300_001, url: HOOK_URL }))), stale);
    // Seconds where milliseconds belong are 56 years off.
    expectRejected(await verify("hubspot", delivery(await signHubspot({ secret: SECRET, body, timestamp: T, url: HOOK_URL }))), stale);
    expect((await verify("hubspot", delivery(await signHubspot({ secret: SECRET, body, timestamp: NOW - 300_000, url: HOOK_URL })))).kind).toBe("event");
  });
});

describe("typeform", () => {
  const body = JSON.stringify({ event_id: "01HXYZ", event_type: "form_response", form_response: { form_id: "lT4Z3j", answers: [] } });

  it("accepts sha256=<base64 HMAC of the body>; id is event_id, type is event_type", async () => {
    const signed = await signTypeform({ secret: SECRET, body });
    expect(await verify("typeform", delivery(signed))).toEqual({
      kind: "event",
      event: JSON.parse(body),
      eventId: "01HXYZ",
      eventType: "form_response",
      // No timestamp: the signature never expires, so the body is remembered past the id's week.
      bodyMac: signed.headers["Typeform-Signature"]!.slice("sha256=".length),
    });
  });

  it("refuses a wrong secret, a tampered body, a missing or malformed header", async () => {
    const mismatch = "Typeform-Signature does not match the body.";
    expectRejected(await verify("typeform", delivery(await signTypeform({ secret: "other", body }))), mismatch);
    const signed = await signTypeform({ secret: SECRET, body });
    expectRejected(await verify("typeform", delivery(signed, { rawBody: body.replace("lT4Z3j", "other") })), mismatch);
    expectRejected(await verify("typeform", withHeader(signed, "Typeform-Signature", null)), "Typeform-Signature is missing.");
    const malformed = "Typeform-Signature must be sha256=<base64 HMAC-SHA256>.";
    const base64 = signed.headers["Typeform-Signature"]!.slice(7);
    expectRejected(await verify("typeform", withHeader(signed, "Typeform-Signature", base64)), malformed);
    expectRejected(await verify("typeform", withHeader(signed, "Typeform-Signature", `sha256=${await hmac(SECRET, body, "hex")}`)), malformed);
  });

  it("verifies before parsing", async () => {
    expectRejected(await verify("typeform", delivery(await signTypeform({ secret: SECRET, body: "{" }))), "The body must be JSON.");
  });
});

describe("token", () => {
  const body = JSON.stringify({ id: "ignored", type: "ignored", lead: "ada@example.com" });

  it("accepts the secret as a Bearer token; id and type stay null", async () => {
    expect(await verify("token", delivery(signToken({ secret: SECRET, body })))).toEqual({
      kind: "event",
      event: JSON.parse(body),
      eventId: null,
      eventType: null,
    });
    const lower = withHeader(signToken({ secret: SECRET, body }), "Authorization", `bearer ${SECRET}`);
    expect((await verify("token", lower)).kind).toBe("event");
  });

  it("accepts the secret in ?token= on the URL", async () => {
    const signed = signToken({ secret: SECRET, body, via: "query", url: `${HOOK_URL}?source=zap` });
    expect(signed.headers.Authorization).toBeUndefined();
    expect((await verify("token", delivery(signed))).kind).toBe("event");
    // A sender's own Authorization header does not get in the way of the token in the URL.
    const withBasic = withHeader(signed, "Authorization", "Basic dXNlcjpwYXNz");
    expect((await verify("token", withBasic)).kind).toBe("event");
  });

  it("takes an empty body as {} and refuses a body that is not JSON", async () => {
    expect(await verify("token", delivery(signToken({ secret: SECRET, body: "" })))).toEqual({ kind: "event", event: {}, eventId: null, eventType: null });
    expectRejected(await verify("token", delivery(signToken({ secret: SECRET, body: "lead=ada" }))), "The body must be JSON.");
  });

  it("refuses a wrong token, a missing one and a malformed Authorization", async () => {
    const mismatch = "The token does not match.";
    expectRejected(await verify("token", delivery(signToken({ secret: "other", body }))), mismatch);
    expectRejected(await verify("token", delivery(signToken({ secret: `${SECRET}x`, body, via: "query", url: HOOK_URL }))), mismatch);
    expectRejected(await verify("token", delivery(signToken({ secret: SECRET.slice(0, -1), body }))), mismatch);
    const signed = signToken({ secret: SECRET, body });
    expectRejected(await verify("token", withHeader(signed, "Authorization", null)), "Send the secret as Authorization: Bearer <secret> or ?token=<secret>.");
    expectRejected(
      await verify("token", delivery(signed, { headers: new Headers(), url: `${HOOK_URL}?token=` })),
      "Send the secret as Authorization: Bearer <secret> or ?token=<secret>.",
    );
    expectRejected(await verify("token", withHeader(signed, "Authorization", SECRET)), "Authorization must be Bearer <secret>.");
    expectRejected(await verify("token", withHeader(signed, "Authorization", `Basic ${btoa(`user:${SECRET}`)}`)), "Authorization must be Bearer <secret>.");
  });
});
