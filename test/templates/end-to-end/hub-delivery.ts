// A delivery to a deployed webhook template in the hub's own scheme (the default `verify`): the
// agent's webhook_secret signs "<timestamp>.<raw body>", as a form, a shop or an app would.
import { expect } from "vitest";
import { call, json } from "../../helpers/api";
import { hmac } from "../../helpers/provider-signatures";

/** Posts `body` to the agent's webhook URL, signed; answers the started run's id. */
export async function deliver(agent: { agent_id: string; webhook_secret: string }, body: Record<string, unknown>): Promise<string> {
  const raw = JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = await hmac(agent.webhook_secret, `${timestamp}.${raw}`, "hex");
  const response = await call(`/v1/hooks/agents/${agent.agent_id}`, {
    body: raw,
    headers: { "Content-Type": "application/json", "X-Hub-Timestamp": timestamp, "X-Hub-Signature": `sha256=${signature}` },
  });
  expect(response.status).toBe(202);
  return (await json(response)).execution_id;
}
