import { describe, expect, it } from "vitest";
import { checkApprovalChannels } from "../../src/approvals/channels/check";
import { call, json } from "../helpers/api";
import { hmac } from "../helpers/provider-signatures";
import { FAKE, type Owner, askApproval, eventually, fakeRequests, newConnection, newOwner, scenarioName, scriptFake } from "./helpers";

type Recorded = Awaited<ReturnType<typeof fakeRequests>>[number];

/** Verifies a delivery as a receiver would, by DESIGN §3: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>"> under the agent's webhook secret. */
async function verified(owner: Owner, delivery: Recorded): Promise<any> {
  const timestamp = delivery.headers["x-hub-timestamp"]!;
  expect(Math.abs(Date.now() / 1000 - Number(timestamp))).toBeLessThan(300);
  expect(delivery.headers["x-hub-signature"]).toBe(`sha256=${await hmac(owner.webhookSecret, `${timestamp}.${delivery.raw}`, "hex")}`);
  return JSON.parse(delivery.raw);
}

describe("approvals sent to a webhook", () => {
  it("posts approval.requested and then approval.decided, each signed with the hub's scheme", async () => {
    const owner = await newOwner();
    const scenario = scenarioName("webhook");
    const approval = await askApproval(owner, [{ via: "webhook", url: `${FAKE()}/s/${scenario}/hook` }]);

    const [requested] = await fakeRequests(scenario);
    expect(requested!.method).toBe("POST");
    expect(requested!.headers["content-type"]).toBe("application/json");
    expect(requested!.headers["x-hub-event"]).toBe("approval.requested");
    const first = await verified(owner, requested!);
    expect(first).toMatchObject({
      type: "approval.requested",
      approval: { id: approval.id, status: "pending", tool: "hubspot_delete_contact", agent_id: owner.agentId },
    });

    const decided = await call(`/v1/approvals/${approval.id}/decision`, { token: owner.key, json: { decision: "approve" } });
    expect(decided.status).toBe(200);
    const [, decision] = await eventually(async () => {
      const all = await fakeRequests(scenario);
      return all.length >= 2 ? all : undefined;
    }, "approval.decided");
    const second = await verified(owner, decision!);
    expect(second).toMatchObject({ type: "approval.decided", approval: { id: approval.id, status: "approved", decided_by: (await json(decided)).decided_by } });
    expect(decision!.headers["idempotency-key"]).toBe(`${approval.id}:approval.decided`);
  });

  it("a channel that fails leaves the others told", async () => {
    const owner = await newOwner();
    const slackScenario = scenarioName("webhook-slack");
    const hookScenario = scenarioName("webhook-others");
    const slack = await newConnection(owner.key, "slack", {
      bot_token: "xoxb-others-1",
      signing_secret: "others-secret",
      base_url: `${FAKE()}/s/${slackScenario}`,
    });
    await scriptFake(slackScenario, [{ body: { ok: false, error: "channel_not_found" } }]);
    const approval = await askApproval(owner, [
      { via: "slack", connection_id: slack, channel: "#gone" },
      { via: "webhook", url: `${FAKE()}/s/${hookScenario}/hook` },
    ]);
    const [requested] = await fakeRequests(hookScenario);
    expect((await verified(owner, requested!)).approval.id).toBe(approval.id);
    expect(approval.status).toBe("pending");
  });

  it("a private address is refused by the outbound rules where the deployment forbids private URLs", async () => {
    const owner = await newOwner({ ALLOW_PRIVATE_NETWORK_URLS: "false" });
    const scenario = scenarioName("webhook-private");
    const url = `${FAKE()}/s/${scenario}/hook`; // 127.0.0.1
    const approval = await askApproval(owner, [{ via: "webhook", url }]);
    expect(approval.status).toBe("pending");
    expect(await fakeRequests(scenario)).toHaveLength(0);
    // And an agent_config naming it is refused when stored.
    await expect(checkApprovalChannels(owner.ctx, { approvals: { notify: [{ via: "webhook", url }] } })).rejects.toMatchObject({
      code: "validation_failed",
      errors: [{ field: "agent_config.approvals.notify.0", message: expect.stringContaining("127.0.0.1") }],
    });
  });
});
