// daily-stripe-revenue-to-slack, deployed and fired as its cron fires: yesterday's (UTC) paid,
// succeeded, unrefunded payments are totalled per currency and posted to the chosen channel; a
// quiet day says so. Stripe's refusal of the key fails the run before anything is posted.
import { describe, expect, it } from "vitest";
import { calls, connect, expectNoPlaceholders, newTenant, runAgent, script, sentTo, useTemplate } from "./harness";

const fire = (due_at: string) => ({ trigger: "schedule", due_at, fired_by: "alarm" });
const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** A charge as GET /v1/charges lists it. */
const charge = (n: number, amount: number, currency: string, created: string, extra: Record<string, unknown> = {}) => ({
  id: `ch_${n}`,
  object: "charge",
  amount,
  currency,
  status: "succeeded",
  paid: true,
  refunded: false,
  customer: null,
  billing_details: { email: `buyer${n}@example.com` },
  created: at(created),
  ...extra,
});
const list = (...data: unknown[]) => ({ body: { object: "list", url: "/v1/charges", has_more: false, data } });

async function deployed() {
  const tenant = await newTenant("revenue");
  const stripe = await connect(tenant.key, "stripe", { secret_key: "sk_test_revenue0123456789", base_url: tenant.base_url });
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-revenue-0123456789", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "daily-stripe-revenue-to-slack", {
    deploy: true,
    connections: { stripe, slack },
    variables: { channel: "#finance" },
  });
  return { ...tenant, agentId: data.agent.agent_id as string };
}

describe("daily-stripe-revenue-to-slack", () => {
  it("totals yesterday's paid payments per currency for the chosen channel, leaving out refunded, failed and other days' ones", async () => {
    const { key, scenario, agentId } = await deployed();
    await script(scenario, [
      list(
        charge(6, 999, "usd", "2026-11-24T07:59:00Z"), // today, before the report
        charge(5, 2500, "eur", "2026-11-23T23:59:59Z"),
        charge(4, 1000, "usd", "2026-11-23T18:00:00Z", { refunded: true }),
        charge(3, 1000, "usd", "2026-11-23T12:00:00Z", { status: "failed", paid: false }),
        charge(2, 12050, "usd", "2026-11-23T09:30:00Z"),
        charge(1, 7000, "eur", "2026-11-23T00:00:00Z"),
        charge(0, 50000, "usd", "2026-11-22T23:59:59Z"), // the day before
      ),
    ]);
    const run = await runAgent(key, agentId, fire("2026-11-24T08:00:00.000Z"));
    expect(run.status).toBe("succeeded");
    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["GET /v1/charges", "POST /chat.postMessage"]);
    expect(sent[0].query).toEqual({ limit: "100" });
    expect(sent[1].body).toEqual({ channel: "#finance", text: "Stripe revenue on 2026-11-23: 95.00 EUR, 120.50 USD from 3 payment(s)" });
    expectNoPlaceholders(sent);
  });

  it("says there were no payments on a quiet day", async () => {
    const { key, scenario, agentId } = await deployed();
    await script(scenario, [list(charge(1, 7000, "eur", "2026-11-20T10:00:00Z"))]);
    expect((await runAgent(key, agentId, fire("2026-11-24T08:00:00.000Z"))).status).toBe("succeeded");
    expect((await sentTo(scenario))[1].body).toEqual({ channel: "#finance", text: "Stripe revenue on 2026-11-23: no payments" });
  });

  it("fails with Stripe's reason when the key is refused, and posts nothing", async () => {
    const { key, scenario, agentId } = await deployed();
    await script(scenario, [
      {
        status: 401,
        body: { error: { type: "invalid_request_error", message: "Invalid API Key provided: sk_test_****6789" } },
      },
    ]);
    const run = await runAgent(key, agentId, fire("2026-11-24T08:00:00.000Z"));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "charges" });
    expect(run.error_message).toContain("Invalid API Key provided");
    expect(calls(await sentTo(scenario))).toEqual(["GET /v1/charges"]);
  });
});
