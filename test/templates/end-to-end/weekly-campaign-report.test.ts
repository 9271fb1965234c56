// weekly-campaign-report, deployed on its Monday schedule and run through its agent: Mailchimp's
// audiences become one readable Slack message (a line per audience, largest first, and the
// total), never the raw JSON; a channel the bot is not in fails the run with Slack's reason.
import { describe, expect, it } from "vitest";
import { calls, connect, expectNoPlaceholders, newTenant, runAgent, sentTo, useTemplate } from "./harness";

/** The input a scheduled fire gives the run. */
const mondayFire = { trigger: "schedule", due_at: "2026-11-23T09:00:00.000Z", fired_by: "alarm" };

async function deployed(channel: string) {
  const tenant = await newTenant("weekly");
  const mailchimp = await connect(tenant.key, "mailchimp", { api_key: "0123456789abcdef0123456789abcdef-us21", base_url: tenant.base_url });
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-test-0123456789", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "weekly-campaign-report", {
    deploy: true,
    connections: { mailchimp, slack },
    variables: { report_channel: channel },
  });
  expect(data.agent.trigger).toMatchObject({ type: "schedule" });
  expect(data.agent.monitoring.next_run_at).not.toBeNull();
  return { ...tenant, agentId: data.agent.agent_id as string };
}

describe("weekly-campaign-report", () => {
  it("posts each audience's subscribers and the total to the chosen channel", async () => {
    const { key, scenario, agentId } = await deployed("#marketing");
    const run = await runAgent(key, agentId, mondayFire);
    expect(run.status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["GET /lists", "POST /chat.postMessage"]);
    expect(sent[0]!.query).toMatchObject({ count: "100" });
    expect(sent[1]!.body).toEqual({
      channel: "#marketing",
      text: [
        "Weekly audience report: 3 audiences, 1585 subscribers in all",
        "• Newsletter: 1200 subscribers",
        "• Customers: 300 subscribers",
        "• Webinar: 85 subscribers",
      ].join("\n"),
    });
    expectNoPlaceholders(sent);
  });

  it("fails the run with Slack's not_in_channel when the bot is not in the report channel", async () => {
    const { key, scenario, agentId } = await deployed("#random");
    const run = await runAgent(key, agentId, mondayFire);
    expect(run).toMatchObject({ status: "failed", failed_step_id: "post" });
    expect(run.error_message).toContain("not_in_channel");
    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["GET /lists", "POST /chat.postMessage"]);
    expect(sent[1]!.body.channel).toBe("#random");
    expect(sent[1]!.body.text).not.toContain('"member_count"');
  });
});
