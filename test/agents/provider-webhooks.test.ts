import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser, ORIGIN } from "../helpers/api";
import { newWorkflow, settled } from "../helpers/runs";
import { type SignedRequest, type SignedScheme, signAs, signGithub, signSlack, signStripe, signToken } from "../helpers/provider-signatures";

const SECRET = "whsec_4eC39HqLyjWDarjtT1zdp7dc8a9f0e1b";

/** A workflow started by a webhook verified the provider's way, deployed, with the provider's secret set. */
async function providerAgent(verify: SignedScheme, extra: Record<string, unknown> = {}) {
  const { key } = await newApiKey(await newUser());
  const workflow = await newWorkflow(key, {
    trigger_type: "webhook",
    trigger_config: { verify, ...extra },
    steps: [{ id: "note", type: "set", values: { got: "{{input.event_type}}" } }],
  });
  const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
  const set = await call(`/v1/agents/${agent.agent_id}/webhook-secret`, { method: "PUT", token: key, json: { secret: SECRET } });
  expect(set.status).toBe(204);
  return { key, agent, hookUrl: `${ORIGIN}/v1/hooks/agents/${agent.agent_id}` };
}

const deliver = (url: string, signed: SignedRequest) =>
  call((signed.url ?? url).slice(ORIGIN.length), { body: signed.body, headers: { "Content-Type": "application/json", ...signed.headers } });

const eventsOf = async (key: string, agentId: string) => (await json(await call(`/v1/agents/${agentId}/events`, { token: key }))).data;

/** Each provider's event as it sends it, and the id and type the hub should read from it. */
const SAMPLES: Record<Exclude<SignedScheme, "token">, { body: unknown; id: string; type: string; extra?: Record<string, string> }> = {
  stripe: {
    body: { id: "evt_1QpQ2A2eZvKYlo2C", object: "event", type: "payment_intent.succeeded", data: { object: { id: "pi_3", amount: 2000, currency: "usd" } } },
    id: "evt_1QpQ2A2eZvKYlo2C",
    type: "payment_intent.succeeded",
  },
  github: { body: { ref: "refs/heads/main", repository: { full_name: "acme/site" } }, id: "72d3162e-cc78-11e3-81ab-4c9367dc0958", type: "push" },
  slack: {
    body: { type: "event_callback", team_id: "T1", event_id: "Ev0PV52K21", event: { type: "app_mention", text: "<@U1> report", channel: "C1" } },
    id: "Ev0PV52K21",
    type: "app_mention",
  },
  shopify: {
    body: { id: 820982911946154500, email: "jon@example.com", total_price: "199.00" },
    id: "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043",
    type: "orders/create",
  },
  hubspot: {
    body: [{ eventId: 1637284, subscriptionType: "contact.creation", objectId: 123, portalId: 62515, occurredAt: 1763800000000 }],
    id: "1637284",
    type: "contact.creation",
  },
  typeform: {
    body: { event_id: "01HZX9Q3", event_type: "form_response", form_response: { form_id: "lT4Z3j", answers: [{ type: "email", email: "lead@example.com" }] } },
    id: "01HZX9Q3",
    type: "form_response",
  },
};

async function signSample(scheme: Exclude<SignedScheme, "token">, hookUrl: string, secret = SECRET, body?: string) {
  const sample = SAMPLES[scheme];
  const raw = body ?? JSON.stringify(sample.body);
  if (scheme === "github") return signGithub({ secret, body: raw, event: sample.type, delivery: sample.id });
  if (scheme === "shopify")
    return signAs("shopify", { secret, body: raw }).then((signed) =>
      withHeaders(signed, { "X-Shopify-Topic": sample.type, "X-Shopify-Webhook-Id": sample.id }),
    );
  if (scheme === "hubspot") return signAs("hubspot", { secret, body: raw, url: hookUrl, timestamp: Date.now() });
  return signAs(scheme, { secret, body: raw });
}

const withHeaders = (signed: SignedRequest, headers: Record<string, string>): SignedRequest => ({ ...signed, headers: { ...signed.headers, ...headers } });

describe("provider webhooks", () => {
  for (const scheme of Object.keys(SAMPLES) as (keyof typeof SAMPLES)[]) {
    it(`${scheme}: a delivery signed the provider's way starts one run with the event, its id and type; a retry starts nothing`, async () => {
      const { key, agent, hookUrl } = await providerAgent(scheme);
      const sample = SAMPLES[scheme];
      const first = await deliver(hookUrl, await signSample(scheme, hookUrl));
      expect(first.status).toBe(202);
      const { execution_id } = await json(first);
      const run = await settled(key, execution_id);
      expect(run.status).toBe("succeeded");
      expect(run.input_data).toMatchObject({ event: sample.body, event_id: sample.id, event_type: sample.type });
      expect(Date.parse(run.input_data.received_at)).toBeGreaterThan(Date.now() - 60_000);

      // The provider retries the same event (signed again, as providers do): nothing new starts.
      const retry = await deliver(hookUrl, await signSample(scheme, hookUrl));
      expect(retry.status).toBe(200);
      expect(await json(retry)).toEqual({ duplicate: true, execution_id });

      // A wrong secret and a tampered body are refused, and the log says why without the secret.
      await expectProblem(await deliver(hookUrl, await signSample(scheme, hookUrl, "whsec_someone_elses_secret_000")), 401, "unauthorized");
      const signed = await signSample(scheme, hookUrl);
      await expectProblem(await deliver(hookUrl, { ...signed, body: signed.body.replace("}", " }") }), 401, "unauthorized");
      const events = await eventsOf(key, agent.agent_id);
      expect(events.map((e: any) => e.outcome)).toEqual(["rejected", "rejected", "duplicate", "started"]);
      expect(events[3]).toMatchObject({ source: "webhook", event_id: sample.id, event_type: sample.type, execution_id });
      expect(events[0].detail).toBeTruthy();
      expect(JSON.stringify(events)).not.toContain(SECRET);
      const runs = await json(await call(`/v1/workflows/${agent.workflow_id}/executions`, { token: key }));
      expect(runs.data).toHaveLength(1);
    });
  }

  it("stripe: a stale timestamp is refused; a header with several v1 signatures passes when one matches", async () => {
    const { hookUrl } = await providerAgent("stripe");
    const body = JSON.stringify({ ...(SAMPLES.stripe.body as object), id: "evt_stale" });
    const stale = await expectProblem(
      await deliver(hookUrl, await signStripe({ secret: SECRET, body, timestamp: Math.floor(Date.now() / 1000) - 301 })),
      401,
      "unauthorized",
    );
    expect(stale.detail).toMatch(/5 minutes/);
    const rolled = await signStripe({ secret: SECRET, body, extraV1: ["0".repeat(64)] });
    expect((await deliver(hookUrl, rolled)).status).toBe(202);
  });

  it("slack: the url_verification handshake is answered with its challenge, and starts nothing", async () => {
    const { key, agent, hookUrl } = await providerAgent("slack");
    const body = JSON.stringify({
      token: "Jhj5dZrVaK7ZwHHjRyZWjbDl",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
      type: "url_verification",
    });
    const answer = await deliver(hookUrl, await signSlack({ secret: SECRET, body }));
    expect(answer.status).toBe(200);
    expect(await json(answer)).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
    // Unsigned, it is refused like any other call.
    await expectProblem(await call(hookUrl.slice(ORIGIN.length), { body, headers: { "Content-Type": "application/json" } }), 401, "unauthorized");
    const runs = await json(await call(`/v1/workflows/${agent.workflow_id}/executions`, { token: key }));
    expect(runs.data).toHaveLength(0);
  });

  for (const scheme of ["github", "shopify"] as const) {
    it(`${scheme}: a captured delivery sent again under a new id starts nothing (the id header is not signed; the body is)`, async () => {
      const { key, agent, hookUrl } = await providerAgent(scheme);
      const first = await deliver(hookUrl, await signSample(scheme, hookUrl));
      expect(first.status).toBe(202);
      const { execution_id } = await json(first);
      const idHeader = scheme === "github" ? "X-GitHub-Delivery" : "X-Shopify-Webhook-Id";
      const replayed = withHeaders(await signSample(scheme, hookUrl), { [idHeader]: "00000000-0000-4000-8000-000000000000" });
      const again = await deliver(hookUrl, replayed);
      expect(again.status).toBe(200);
      expect(await json(again)).toEqual({ duplicate: true, execution_id });
      // Another event (another body) still starts its own run.
      const other = await deliver(hookUrl, await signSample(scheme, hookUrl, SECRET, JSON.stringify({ ...(SAMPLES[scheme].body as object), note: "another" })));
      expect(other.status).toBe(202);
      const runs = await json(await call(`/v1/workflows/${agent.workflow_id}/executions`, { token: key }));
      expect(runs.data).toHaveLength(2);
    });
  }

  it("github: a ping is answered 200 and starts nothing", async () => {
    const { key, agent, hookUrl } = await providerAgent("github");
    const ping = await deliver(
      hookUrl,
      await signGithub({ secret: SECRET, body: JSON.stringify({ zen: "Keep it logically awesome.", hook_id: 1 }), event: "ping" }),
    );
    expect(ping.status).toBe(200);
    const runs = await json(await call(`/v1/workflows/${agent.workflow_id}/executions`, { token: key }));
    expect(runs.data).toHaveLength(0);
  });

  it("event_types filters: another type is answered 200 {ignored: true} and logged", async () => {
    const { key, agent, hookUrl } = await providerAgent("stripe", { event_types: ["checkout.session.completed"] });
    const answer = await deliver(hookUrl, await signStripe({ secret: SECRET, body: JSON.stringify(SAMPLES.stripe.body) }));
    expect(answer.status).toBe(200);
    expect(await json(answer)).toEqual({ ignored: true });
    const wanted = JSON.stringify({ id: "evt_2", object: "event", type: "checkout.session.completed", data: { object: {} } });
    expect((await deliver(hookUrl, await signStripe({ secret: SECRET, body: wanted }))).status).toBe(202);
    const events = await eventsOf(key, agent.agent_id);
    expect(events.map((e: any) => [e.outcome, e.event_type])).toEqual([
      ["started", "checkout.session.completed"],
      ["ignored", "payment_intent.succeeded"],
    ]);
  });

  it("token: Authorization: Bearer or ?token= (for senders that only take a URL); anything else is refused", async () => {
    const { key, agent, hookUrl } = await providerAgent("token");
    const body = JSON.stringify({ name: "Ada", email: "ada@example.com" });
    const viaHeader = await deliver(hookUrl, signToken({ secret: SECRET, body, via: "header" }));
    expect(viaHeader.status).toBe(202);
    const viaQuery = await deliver(hookUrl, signToken({ secret: SECRET, body, url: hookUrl, via: "query" }));
    expect(viaQuery.status).toBe(202);
    const run = await settled(key, (await json(viaQuery)).execution_id);
    expect(run.input_data).toMatchObject({ event: { name: "Ada" }, event_id: null, event_type: null });
    await expectProblem(await deliver(hookUrl, signToken({ secret: `${SECRET}x`, body, via: "header" })), 401, "unauthorized");
    await expectProblem(await deliver(hookUrl, { body, headers: {} }), 401, "unauthorized");
    // The token is not kept in the log, whichever way it came.
    expect(JSON.stringify(await eventsOf(key, agent.agent_id))).not.toContain(SECRET);
  });

  it("with no signing secret set, provider deliveries are refused with a reason that says how to set it", async () => {
    const { key } = await newApiKey(await newUser());
    const workflow = await newWorkflow(key, {
      trigger_type: "webhook",
      trigger_config: { verify: "stripe" },
      steps: [{ id: "a", type: "set", values: { x: 1 } }],
    });
    const agent = await json(await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id } }));
    const refused = await expectProblem(
      await deliver(`${ORIGIN}/v1/hooks/agents/${agent.agent_id}`, await signStripe({ secret: SECRET, body: JSON.stringify(SAMPLES.stripe.body) })),
      401,
      "unauthorized",
    );
    expect(refused.detail).toContain("webhook-secret");
    const [event] = await eventsOf(key, agent.agent_id);
    expect(event).toMatchObject({ source: "webhook", outcome: "rejected" });
  });

  it("the signing secret is set by the agent's owner only, bounded, and never shown", async () => {
    const { key, agent } = await providerAgent("stripe");
    const { key: stranger } = await newApiKey(await newUser());
    await expectProblem(
      await call(`/v1/agents/${agent.agent_id}/webhook-secret`, { method: "PUT", token: stranger, json: { secret: SECRET } }),
      404,
      "not_found",
    );
    await expectProblem(
      await call(`/v1/agents/${agent.agent_id}/webhook-secret`, { method: "PUT", token: key, json: { secret: "short" } }),
      422,
      "validation_failed",
    );
    await expectProblem(await call(`/v1/agents/${agent.agent_id}/events`, { token: stranger }), 404, "not_found");
    const shown = JSON.stringify([
      await json(await call(`/v1/agents/${agent.agent_id}`, { token: key })),
      await json(await call("/v1/agents", { token: key })),
    ]);
    expect(shown).not.toContain(SECRET);
    expect(JSON.parse(shown)[0].trigger).toMatchObject({ type: "webhook", verify: "stripe", webhook_url: `${ORIGIN}/v1/hooks/agents/${agent.agent_id}` });
  });

  it("a paused agent refuses deliveries with 409 and the provider's retry after resuming starts the run", async () => {
    const { key, agent, hookUrl } = await providerAgent("typeform");
    await call(`/v1/agents/${agent.agent_id}/pause`, { method: "POST", token: key });
    await expectProblem(await deliver(hookUrl, await signSample("typeform", hookUrl)), 409, "conflict");
    await call(`/v1/agents/${agent.agent_id}/resume`, { method: "POST", token: key });
    expect((await deliver(hookUrl, await signSample("typeform", hookUrl))).status).toBe(202);
    const shown = await json(await call(`/v1/agents/${agent.agent_id}`, { token: key }));
    expect(Date.parse(shown.trigger.last_event_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("the events log pages newest first with a cursor", async () => {
    const { key, agent, hookUrl } = await providerAgent("stripe");
    for (let i = 0; i < 5; i++) {
      const body = JSON.stringify({ id: `evt_page_${i}`, object: "event", type: "invoice.paid", data: { object: {} } });
      expect((await deliver(hookUrl, await signStripe({ secret: SECRET, body }))).status).toBe(202);
    }
    const first = await json(await call(`/v1/agents/${agent.agent_id}/events?limit=2`, { token: key }));
    const second = await json(await call(`/v1/agents/${agent.agent_id}/events?limit=2&cursor=${first.next_cursor}`, { token: key }));
    const third = await json(await call(`/v1/agents/${agent.agent_id}/events?limit=2&cursor=${second.next_cursor}`, { token: key }));
    const ids = [...first.data, ...second.data, ...third.data].map((e: any) => e.event_id);
    expect(ids).toEqual(["evt_page_4", "evt_page_3", "evt_page_2", "evt_page_1", "evt_page_0"]);
    expect(third.next_cursor).toBeNull();
    await expectProblem(await call(`/v1/agents/${agent.agent_id}/events?cursor=nonsense`, { token: key }), 422, "validation_failed");
  });
});
