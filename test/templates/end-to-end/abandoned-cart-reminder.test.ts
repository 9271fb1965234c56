// abandoned-cart-reminder, deployed and fed by signed webhook deliveries: a cart whose order
// completed during the two hours gets no reminder (the order event writes what the reminder
// checks), an abandoned one does, from the sender the user chose; Resend refusing the address
// fails the run with Resend's message, once (a validation error is not retried).
import { describe, expect, it } from "vitest";
import { call, json } from "../../helpers/api";
import { settled } from "../../helpers/runs";
import { deliver } from "./hub-delivery";
import { calls, connect, expectNoPlaceholders, newTenant, script, sentTo, stepReaches, timePasses, useTemplate } from "./harness";

async function deployed() {
  const tenant = await newTenant("cart");
  const resend = await connect(tenant.key, "resend", { api_key: "re_test_0123456789abcdef", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "abandoned-cart-reminder", {
    deploy: true,
    connections: { resend },
    variables: { sender: "Tea Shop <carts@tea.example>" },
  });
  return { ...tenant, agent: data.agent };
}

describe("abandoned-cart-reminder", () => {
  it("reminds about a cart still open after two hours, not about one whose order completed", async () => {
    const { key, scenario, agent } = await deployed();
    const ordered = await deliver(agent, { event: "cart.abandoned", cart_id: "c-100", email: "ada@example.com", item_count: 2 });
    const open = await deliver(agent, { event: "cart.abandoned", cart_id: "c-200", email: "grace@example.com", item_count: 3 });
    await stepReaches(ordered, "wait", "waiting");
    await stepReaches(open, "wait", "waiting");
    const waiting = (await json(await call(`/v1/executions/${ordered}`, { token: key }))).steps.find((s: any) => s.step_id === "wait");
    const hours = (Date.parse(waiting.resume_at) - Date.parse(waiting.started_at)) / 3_600_000;
    expect(hours).toBeCloseTo(2, 2);

    // The shop reports cart c-100's order while the reminder waits.
    const completed = await settled(key, await deliver(agent, { event: "order.completed", cart_id: "c-100" }));
    expect(completed.status).toBe("succeeded");
    expect(completed.steps.map((s: any) => s.step_id)).toEqual(["order_completed", "record_order", "cart_abandoned"]);

    await timePasses(ordered, "wait");
    await timePasses(open, "wait");
    const [first, second] = [await settled(key, ordered), await settled(key, open)];
    expect(first.status).toBe("succeeded");
    expect(first.steps.find((s: any) => s.step_id === "remind")).toBeUndefined();
    expect(second.status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /emails"]);
    expect(sent[0]!.body).toEqual({
      from: "Tea Shop <carts@tea.example>",
      to: "grace@example.com",
      subject: "You left something in your cart",
      html: "<p>Your 3 items are waiting.</p>",
    });
    expectNoPlaceholders(sent);
  });

  it("fails the reminder with Resend's validation message, without retrying it", async () => {
    const { key, scenario, agent } = await deployed();
    const id = await deliver(agent, { event: "cart.abandoned", cart_id: "c-300", email: "linus@example.com", item_count: 1 });
    await stepReaches(id, "wait", "waiting");
    await script(scenario, [
      {
        status: 422,
        body: { statusCode: 422, name: "validation_error", message: "Invalid `to` field. The email address needs to follow the `email@example.com` format." },
      },
    ]);
    await timePasses(id, "wait");
    const run = await settled(key, id);
    expect(run).toMatchObject({ status: "failed", failed_step_id: "remind" });
    expect(run.error_message).toContain("Invalid `to` field");
    expect(run.steps.find((s: any) => s.step_id === "remind").attempts).toBe(1);
    expect(calls(await sentTo(scenario))).toEqual(["POST /emails"]);
  });
});
