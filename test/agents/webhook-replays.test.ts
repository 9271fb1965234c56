import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { forgetOldDeliveries } from "../../src/agents/hub-scheme";
import { createDb } from "../../src/db/client";
import { forgetOldExecutionKeys } from "../../src/executions/sweep";
import { call, json, newApiKey, newUser, ORIGIN } from "../helpers/api";
import { type SignedRequest, type SignedScheme, signAs, signGithub, signHubspot, signShopify, signSlack } from "../helpers/provider-signatures";
import { newWorkflow } from "../helpers/runs";

// Replays of signed provider deliveries: a captured request sent again, as it was or under
// another unsigned event type, starts nothing; what the hub remembers outlives what it guards.

const SECRET = "whsec_4eC39HqLyjWDarjtT1zdp7dc8a9f0e1b";
const FORM = "application/x-www-form-urlencoded";
const DAY_MS = 24 * 3600 * 1000;

async function providerAgent(verify: SignedScheme, extra: Record<string, unknown> = {}) {
  const user = await newUser();
  const { key } = await newApiKey(user);
  const workflow = await newWorkflow(key, {
    trigger_type: "webhook",
    trigger_config: { verify, ...extra },
    steps: [{ id: "note", type: "set", values: { got: "{{input.event_type}}" } }],
  });
  const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
  expect((await call(`/v1/agents/${agent.agent_id}/webhook-secret`, { method: "PUT", token: key, json: { secret: SECRET } })).status).toBe(204);
  return { key, agent, userId: user.id, hookUrl: `${ORIGIN}/v1/hooks/agents/${agent.agent_id}` };
}

const deliver = (hookUrl: string, signed: SignedRequest) => call((signed.url ?? hookUrl).slice(ORIGIN.length), { body: signed.body, headers: signed.headers });

const withHeaders = (signed: SignedRequest, headers: Record<string, string>): SignedRequest => ({ ...signed, headers: { ...signed.headers, ...headers } });

const runsOf = async (key: string, workflowId: number) => (await json(await call(`/v1/workflows/${workflowId}/executions`, { token: key }))).data;

const outcomesOf = async (key: string, agentId: string) =>
  (await json(await call(`/v1/agents/${agentId}/events`, { token: key }))).data.map((e: { outcome: string }) => e.outcome);

/**
 * The housekeeping sweeps (idempotency keys, remembered signatures) as they run once what one
 * agent's deliveries left behind is `days` old: its rows are aged, not the clock moved, so other
 * tests sharing the database keep theirs.
 */
async function sweepAsIfLater(userId: number, agentId: string, days: number) {
  const ago = days * DAY_MS;
  await env.DB.batch([
    env.DB.prepare("UPDATE execution_keys SET created_at = created_at - ? WHERE user_id = ?").bind(ago, userId),
    env.DB.prepare("UPDATE webhook_deliveries SET created_at = created_at - ? WHERE agent_id = ?").bind(ago, agentId),
  ]);
  const db = createDb(env.DB);
  await forgetOldExecutionKeys(db);
  await forgetOldDeliveries(db);
  const { keys } = (await env.DB.prepare("SELECT count(*) AS keys FROM execution_keys WHERE user_id = ?").bind(userId).first<{ keys: number }>())!;
  expect(keys).toBe(0);
}

// Slack's own example of a slash command (its "Verifying requests from Slack" guide).
const SLASH_COMMAND =
  "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";

describe("slack: requests without an event id", () => {
  it("a slash command sent 4 times within the timestamp window starts one run; the others are duplicates of it", async () => {
    const { key, agent, hookUrl } = await providerAgent("slack");
    const signed = await signSlack({ secret: SECRET, body: SLASH_COMMAND, contentType: FORM });
    const first = await deliver(hookUrl, signed);
    expect(first.status).toBe(202);
    const { execution_id } = await json(first);
    for (let i = 0; i < 3; i++) {
      const again = await deliver(hookUrl, signed);
      expect(again.status).toBe(200);
      expect(await json(again)).toEqual({ duplicate: true, execution_id });
    }
    expect(await runsOf(key, agent.workflow_id)).toHaveLength(1);
    expect(await outcomesOf(key, agent.agent_id)).toEqual(["duplicate", "duplicate", "duplicate", "started"]);
    // The same command typed again is a new request (a new timestamp): it runs.
    const later = await signSlack({ secret: SECRET, body: SLASH_COMMAND, contentType: FORM, timestamp: Math.floor(Date.now() / 1000) + 1 });
    expect((await deliver(hookUrl, later)).status).toBe(202);
  });

  it("an interactivity payload replayed is a duplicate", async () => {
    const { key, agent, hookUrl } = await providerAgent("slack");
    const payload = { type: "block_actions", user: { id: "U1" }, actions: [{ action_id: "approve", value: "42" }], trigger_id: "1.2.3" };
    const signed = await signSlack({ secret: SECRET, body: `payload=${encodeURIComponent(JSON.stringify(payload))}`, contentType: FORM });
    expect((await deliver(hookUrl, signed)).status).toBe(202);
    expect(await json(await deliver(hookUrl, signed))).toMatchObject({ duplicate: true });
    expect(await runsOf(key, agent.workflow_id)).toHaveLength(1);
  });

  it("an Events API envelope without event_id is deduplicated by its signature; with event_id, Slack's retry (new timestamp) is a duplicate by the id", async () => {
    const { key, agent, hookUrl } = await providerAgent("slack");
    const limited = JSON.stringify({ token: "x", type: "app_rate_limited", team_id: "T1", minute_rate_limited: 1518467820, api_app_id: "A1" });
    const signedLimited = await signSlack({ secret: SECRET, body: limited });
    expect((await deliver(hookUrl, signedLimited)).status).toBe(202);
    expect(await json(await deliver(hookUrl, signedLimited))).toMatchObject({ duplicate: true });

    const envelope = JSON.stringify({ type: "event_callback", team_id: "T1", event_id: "Ev0RETRY01", event: { type: "app_mention", text: "hi" } });
    const first = await deliver(hookUrl, await signSlack({ secret: SECRET, body: envelope }));
    expect(first.status).toBe(202);
    const retry = withHeaders(await signSlack({ secret: SECRET, body: envelope, timestamp: Math.floor(Date.now() / 1000) + 2 }), {
      "X-Slack-Retry-Num": "1",
      "X-Slack-Retry-Reason": "http_timeout",
    });
    expect(await json(await deliver(hookUrl, retry))).toEqual({ duplicate: true, execution_id: (await json(first)).execution_id });
    expect(await runsOf(key, agent.workflow_id)).toHaveLength(2);
  });
});

describe("hubspot and stripe: requests without an event id", () => {
  it("a HubSpot batch whose events lack eventId, replayed within the window, is a duplicate", async () => {
    const { key, agent, hookUrl } = await providerAgent("hubspot");
    const body = JSON.stringify([{ subscriptionType: "contact.creation", objectId: 123, portalId: 62515 }]);
    const signed = await signHubspot({ secret: SECRET, body, url: hookUrl });
    expect((await deliver(hookUrl, signed)).status).toBe(202);
    expect(await json(await deliver(hookUrl, signed))).toMatchObject({ duplicate: true });
    expect(await runsOf(key, agent.workflow_id)).toHaveLength(1);
  });

  it("a Stripe body without an id, replayed within the window, is a duplicate", async () => {
    const { key, agent, hookUrl } = await providerAgent("stripe");
    const signed = await signAs("stripe", { secret: SECRET, body: JSON.stringify({ object: "event", type: "ping.test" }) });
    expect((await deliver(hookUrl, signed)).status).toBe(202);
    expect(await json(await deliver(hookUrl, signed))).toMatchObject({ duplicate: true });
    expect(await runsOf(key, agent.workflow_id)).toHaveLength(1);
  });
});

const GITHUB_STAR = JSON.stringify({
  action: "created",
  starred_at: "2026-01-15T12:00:00Z",
  repository: { full_name: "acme/site" },
  sender: { login: "octocat" },
});
const SHOPIFY_CUSTOMER = JSON.stringify({ id: 706405506930370000, email: "bob@example.com", first_name: "Bob", updated_at: "2026-01-15T12:00:00-05:00" });

/** The delivery of `body` as each provider sends it, under the type (an unsigned header) given. */
function signedAs(scheme: "github" | "shopify", body: string, type: string) {
  return scheme === "github" ? signGithub({ secret: SECRET, body, event: type }) : signShopify({ secret: SECRET, body, topic: type });
}

const CASES = {
  github: { body: GITHUB_STAR, seen: "star", wanted: "push" },
  shopify: { body: SHOPIFY_CUSTOMER, seen: "customers/update", wanted: "orders/create" },
} as const;

describe("github and shopify: the event type is an unsigned header", () => {
  for (const scheme of ["github", "shopify"] as const) {
    const { body, seen, wanted } = CASES[scheme];

    it(`${scheme}: a delivery ignored by event_types, re-sent byte for byte under a wanted type, starts nothing`, async () => {
      const { key, agent, hookUrl } = await providerAgent(scheme, { event_types: [wanted] });
      const ignored = await deliver(hookUrl, await signedAs(scheme, body, seen));
      expect(await json(ignored)).toEqual({ ignored: true });
      const spoofed = await deliver(hookUrl, await signedAs(scheme, body, wanted));
      expect(spoofed.status).toBe(200);
      expect(await json(spoofed)).toMatchObject({ duplicate: true });
      expect(await runsOf(key, agent.workflow_id)).toHaveLength(0);
      expect(await outcomesOf(key, agent.agent_id)).toEqual(["duplicate", "ignored"]);
      // Another body of the wanted type still runs.
      expect((await deliver(hookUrl, await signedAs(scheme, body.replace("}", ',"n":2}'), wanted))).status).toBe(202);
    });

    it(`${scheme}: a delivery refused while the agent was paused cannot come back under another type; the provider's retry of it runs`, async () => {
      const { key, agent, hookUrl } = await providerAgent(scheme, { event_types: [wanted] });
      await call(`/v1/agents/${agent.agent_id}/pause`, { method: "POST", token: key });
      expect((await deliver(hookUrl, await signedAs(scheme, body, seen))).status).toBe(409);
      const retried = body.replace("}", ',"retried":true}');
      expect((await deliver(hookUrl, await signedAs(scheme, retried, wanted))).status).toBe(409);
      await call(`/v1/agents/${agent.agent_id}/resume`, { method: "POST", token: key });
      expect(await json(await deliver(hookUrl, await signedAs(scheme, body, wanted)))).toMatchObject({ duplicate: true });
      // The retry of the delivery that really was of the wanted type starts its run, once.
      const started = await deliver(hookUrl, await signedAs(scheme, retried, wanted));
      expect(started.status).toBe(202);
      expect(await json(await deliver(hookUrl, await signedAs(scheme, retried, wanted)))).toEqual({
        duplicate: true,
        execution_id: (await json(started)).execution_id,
      });
      expect(await runsOf(key, agent.workflow_id)).toHaveLength(1);
    });

    it(`${scheme}: a delivery that ran, replayed under another type or long after the idempotency keys' week, starts nothing`, async () => {
      const { key, agent, userId, hookUrl } = await providerAgent(scheme);
      expect((await deliver(hookUrl, await signedAs(scheme, body, wanted))).status).toBe(202);
      expect(await json(await deliver(hookUrl, await signedAs(scheme, body, seen)))).toMatchObject({ duplicate: true });
      // A month on, every week-long key has been swept: the body's signature has not been forgotten.
      await sweepAsIfLater(userId, agent.agent_id, 30);
      const late = await deliver(hookUrl, await signedAs(scheme, body, wanted));
      expect(late.status).toBe(200);
      expect(await json(late)).toMatchObject({ duplicate: true });
      expect(await runsOf(key, agent.workflow_id)).toHaveLength(1);
    });
  }

  it("github: the signed ping, re-sent as a push, starts nothing", async () => {
    const { key, agent, hookUrl } = await providerAgent("github");
    const ping = JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1, hook: { type: "Repository", events: ["push"] } });
    expect((await deliver(hookUrl, await signGithub({ secret: SECRET, body: ping, event: "ping" }))).status).toBe(200);
    const spoofed = await deliver(hookUrl, await signGithub({ secret: SECRET, body: ping, event: "push" }));
    expect(spoofed.status).toBe(200);
    expect(await json(spoofed)).toMatchObject({ duplicate: true });
    expect(await runsOf(key, agent.workflow_id)).toHaveLength(0);
  });

  it("typeform: a delivery replayed after the idempotency keys' week starts nothing (no timestamp: its signature never expires)", async () => {
    const { key, agent, userId, hookUrl } = await providerAgent("typeform");
    const body = JSON.stringify({ event_id: "01HZXLATE1", event_type: "form_response", form_response: { form_id: "lT4Z3j", answers: [] } });
    const signed = await signAs("typeform", { secret: SECRET, body });
    expect((await deliver(hookUrl, signed)).status).toBe(202);
    await sweepAsIfLater(userId, agent.agent_id, 30);
    const late = await deliver(hookUrl, signed);
    expect(late.status).toBe(200);
    expect(await json(late)).toMatchObject({ duplicate: true });
    expect(await runsOf(key, agent.workflow_id)).toHaveLength(1);
  });
});
