// The "new Stripe payment" trigger as the platform declares it (stripe.polls): a poll trigger on
// stripe_list_charges remembers the charges there at first, then starts one run per new charge.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AutomationAgent } from "../../../src/agents/automation-agent";
import { agentObject } from "../../../src/agents/schedules";
import { stripe } from "../../../src/connections/platforms/stripe";
import { call, json } from "../../helpers/api";
import { newWorkflow } from "../../helpers/runs";
import { connected, respondWith } from "./platform-test-kit";

const charge = (n: number) => ({
  id: `ch_${n}`,
  object: "charge",
  amount: 1000 * n,
  currency: "eur",
  status: "succeeded",
  paid: true,
  refunded: false,
  customer: null,
  billing_details: { email: `buyer${n}@example.com` },
  description: null,
  payment_intent: `pi_${n}`,
  created: 1763800000 + n,
});
const page = (...numbers: number[]) => ({ object: "list", url: "/v1/charges", has_more: false, data: numbers.map(charge) });

const runInputs = async (agentId: string) =>
  (await env.DB.prepare("SELECT input FROM executions WHERE agent_id = ? ORDER BY created_at, rowid").bind(agentId).all<{ input: string }>()).results.map(
    (row) => JSON.parse(row.input),
  );

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value: ${JSON.stringify(value)}`);
    await scheduler.wait(100);
  }
}

describe("Stripe's New payment poll", () => {
  it("starts one run for each charge that appears after the first poll, with the charge as the tool shapes it", async () => {
    const { hub, scenario } = await connected("stripe", (h) => ({ secret_key: h.secret("sk_test_") }));
    await respondWith(scenario, 200, page(2, 1));
    const poll = stripe.polls![0]!;
    expect(poll).toMatchObject({ title: "New payment", action: "list_charges", items_path: "charges", id_path: "id" });
    const workflow = await newWorkflow(hub.key, {
      trigger_type: "poll",
      trigger_config: { tool: "stripe_list_charges", arguments: poll.arguments, interval_seconds: 3600, items_path: poll.items_path, id_path: poll.id_path },
      steps: [{ id: "thank", type: "set", values: { email: "{{input.item.billing_email}}" } }],
    });
    const agent = await json(await call("/v1/agents/deploy", { token: hub.key, json: { workflow_id: workflow.id } }));
    const events = () => call(`/v1/agents/${agent.agent_id}/events?limit=100`, { token: hub.key }).then(async (r) => (await json(r)).data as any[]);
    await waitFor(events, (list) => list.some((e) => e.detail?.startsWith("First poll")));
    expect(await runInputs(agent.agent_id)).toEqual([]);

    await respondWith(scenario, 200, page(3, 2, 1));
    await runInDurableObject((await agentObject(env, agent.agent_id)) as any, (instance: AutomationAgent) => instance.poll({ agentId: agent.agent_id }));
    const inputs = await runInputs(agent.agent_id);
    expect(inputs).toHaveLength(1);
    expect(inputs[0].item).toMatchObject({ id: "ch_3", amount: 3000, currency: "eur", paid: true, billing_email: "buyer3@example.com" });
  });
});
