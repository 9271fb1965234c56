// Deliveries to a deployed webhook template in a provider's own scheme: the agent's secret is set
// to the provider's signing secret (PUT /v1/agents/{id}/webhook-secret), and each delivery is
// signed as Stripe, Typeform or Shopify signs it.
import { expect } from "vitest";
import { call, json } from "../../helpers/api";
import { signShopify, signStripe, signTypeform } from "../../helpers/provider-signatures";

type Signed = { body: string; headers: Record<string, string> };
const postSigned = (agentId: string, signed: Signed) => call(`/v1/hooks/agents/${agentId}`, { body: signed.body, headers: signed.headers });

async function post(agentId: string, signed: Signed): Promise<string> {
  const response = await postSigned(agentId, signed);
  expect(response.status).toBe(202);
  return (await json(response)).execution_id;
}

async function setSecret(key: string, agentId: string, secret: string) {
  expect((await call(`/v1/agents/${agentId}/webhook-secret`, { method: "PUT", token: key, json: { secret } })).status).toBe(204);
}

/**
 * Sends Stripe events (`{id, object: "event", type, data: {object}}`) signed with the endpoint's
 * whsec_ secret; answers the run's id. `.raw` answers the hub's response instead (an event type the
 * trigger does not take is 200 `{ignored: true}`).
 */
export async function stripeSender(key: string, agentId: string) {
  const secret = `whsec_${crypto.randomUUID().replace(/-/g, "")}`;
  await setSecret(key, agentId, secret);
  const signed = (type: string, object: Record<string, unknown>) => {
    const event = {
      id: `evt_${crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`,
      object: "event",
      api_version: "2024-06-20",
      created: 1763800000,
      livemode: false,
      type,
      data: { object },
    };
    return signStripe({ secret, body: JSON.stringify(event) });
  };
  const send = async (type: string, object: Record<string, unknown>) => post(agentId, await signed(type, object));
  send.raw = async (type: string, object: Record<string, unknown>) => postSigned(agentId, await signed(type, object));
  return send;
}

/** Sends Typeform form responses with `answers`, signed with the webhook's secret; answers the run's id. */
export async function typeformSender(key: string, agentId: string) {
  const secret = `tf_${crypto.randomUUID().replace(/-/g, "")}`;
  await setSecret(key, agentId, secret);
  return async (answers: unknown[]) => {
    const response = {
      event_id: crypto.randomUUID().replace(/-/g, "").slice(0, 26).toUpperCase(),
      event_type: "form_response",
      form_response: { form_id: "lT4Z3j", token: crypto.randomUUID(), submitted_at: "2026-11-22T09:00:00Z", answers },
    };
    return post(agentId, await signTypeform({ secret, body: JSON.stringify(response) }));
  };
}

/** Sends Shopify webhooks of `topic` (the body is the resource itself), signed with the app's secret; answers the run's id. */
export async function shopifySender(key: string, agentId: string, topic: string) {
  const secret = `shpss_${crypto.randomUUID().replace(/-/g, "")}`;
  await setSecret(key, agentId, secret);
  return async (resource: Record<string, unknown>) =>
    post(agentId, await signShopify({ secret, body: JSON.stringify(resource), topic, webhookId: crypto.randomUUID() }));
}

/** A form-encoded body (Stripe, Twilio, Mailgun) as {key: value}. */
export const formBody = (request: { raw: string }) => Object.fromEntries(new URLSearchParams(request.raw));
