// weekly-postmark-bounce-report, deployed and fired as its Monday cron fires: the chosen bounce
// type is asked of Postmark, and the bounces of the 7 days before the report are listed in the
// chosen channel. Postmark's refusal of the server token fails the run before anything is posted.
import { describe, expect, it } from "vitest";
import { calls, connect, expectNoPlaceholders, newTenant, runAgent, script, sentTo, useTemplate } from "./harness";

const fire = (due_at: string) => ({ trigger: "schedule", due_at, fired_by: "alarm" });

/** A bounce as GET /bounces lists it. */
const bounce = (id: number, email: string, at: string, description: string) => ({
  ID: id,
  Type: "SpamComplaint",
  TypeCode: 512,
  Email: email,
  Description: description,
  BouncedAt: at,
  Inactive: true,
  MessageStream: "outbound",
});

async function deployed(variables: Record<string, unknown>) {
  const tenant = await newTenant("bounces");
  const postmark = await connect(tenant.key, "postmark", { server_token: "pm-server-token-0123456789", base_url: tenant.base_url });
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-bounces-0123456789", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "weekly-postmark-bounce-report", { deploy: true, connections: { postmark, slack }, variables });
  return { ...tenant, agentId: data.agent.agent_id as string };
}

describe("weekly-postmark-bounce-report", () => {
  it("asks Postmark for the chosen bounce type and lists the last 7 days' bounces in the chosen channel", async () => {
    const { key, scenario, agentId } = await deployed({ bounce_type: "SpamComplaint", channel: "#deliverability" });
    await script(scenario, [
      {
        body: {
          TotalCount: 3,
          Bounces: [
            bounce(3, "angry@example.com", "2026-11-23T20:00:00-05:00", "The subscriber explicitly marked this message as spam."),
            bounce(2, "grumpy@example.com", "2026-11-17T10:00:00Z", "The subscriber explicitly marked this message as spam."),
            bounce(1, "old@example.com", "2026-11-16T08:59:59Z", "The subscriber explicitly marked this message as spam."),
          ],
        },
      },
    ]);
    const run = await runAgent(key, agentId, fire("2026-11-24T09:00:00.000Z"));
    expect(run.status).toBe("succeeded");
    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["GET /bounces", "POST /chat.postMessage"]);
    expect(sent[0].query).toEqual({ count: "500", offset: "0", type: "SpamComplaint" });
    expect(sent[1].body).toEqual({
      channel: "#deliverability",
      text: [
        "2 SpamComplaint bounce(s) in the last 7 days:",
        "• angry@example.com: The subscriber explicitly marked this message as spam.",
        "• grumpy@example.com: The subscriber explicitly marked this message as spam.",
      ].join("\n"),
    });
    expectNoPlaceholders(sent);
  });

  it("says so when there were no hard bounces (the default type)", async () => {
    const { key, scenario, agentId } = await deployed({ channel: "#deliverability" });
    await script(scenario, [{ body: { TotalCount: 0, Bounces: [] } }]);
    expect((await runAgent(key, agentId, fire("2026-11-24T09:00:00.000Z"))).status).toBe("succeeded");
    const sent = await sentTo(scenario);
    expect(sent[0].query).toMatchObject({ type: "HardBounce" });
    expect(sent[1].body).toEqual({ channel: "#deliverability", text: "No HardBounce bounces in the last 7 days." });
  });

  it("fails with Postmark's reason when the server token is refused, and posts nothing", async () => {
    const { key, scenario, agentId } = await deployed({});
    await script(scenario, [
      { status: 401, body: { ErrorCode: 10, Message: "The Server Token you provided in the X-Postmark-Server-Token request header was invalid." } },
    ]);
    const run = await runAgent(key, agentId, fire("2026-11-24T09:00:00.000Z"));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "bounces" });
    expect(run.error_message).toContain("Server Token you provided");
    expect(calls(await sentTo(scenario))).toEqual(["GET /bounces"]);
  });
});
