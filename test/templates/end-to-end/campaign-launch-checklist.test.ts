// campaign-launch-checklist, deployed (a manual trigger) and run through its agent: the launch is
// announced in the Slack channel, Discord channel and Telegram chat named; a Slack channel the
// bot is not in fails the run before anything is announced elsewhere.
import { describe, expect, it } from "vitest";
import { calls, connect, expectNoPlaceholders, expectSucceeded, newTenant, runAgent, sentTo, useTemplate } from "./harness";

const TELEGRAM_TOKEN = "7012345678:AAHfakeLaunchToken0123456789abcdefg";
const DISCORD_CHANNEL = "200000000000000001";

async function deployed(variables: Record<string, unknown>) {
  const tenant = await newTenant("launch");
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-launch-0123456789", base_url: tenant.base_url });
  const discord = await connect(tenant.key, "discord", { bot_token: "MTAxLaunchBotToken.0123456789", base_url: tenant.base_url });
  const telegram = await connect(tenant.key, "telegram", { bot_token: TELEGRAM_TOKEN, base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "campaign-launch-checklist", { deploy: true, connections: { slack, discord, telegram }, variables });
  return { ...tenant, agentId: data.agent.agent_id as string };
}

const launch = { campaign: "Spring Sale", url: "https://acme.example/spring" };

describe("campaign-launch-checklist", () => {
  it("announces the campaign in the Slack channel, Discord channel and Telegram chat named", async () => {
    const { key, scenario, agentId } = await deployed({ slack_channel: "#general", discord_channel_id: DISCORD_CHANNEL, telegram_chat_id: "@acme_news" });
    expectSucceeded(await runAgent(key, agentId, launch));

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /chat.postMessage", `POST /channels/${DISCORD_CHANNEL}/messages`, `POST /bot${TELEGRAM_TOKEN}/sendMessage`]);
    expect(sent[0].body).toEqual({ channel: "#general", text: ":rocket: Spring Sale is live: https://acme.example/spring" });
    expect(sent[1].body).toMatchObject({ content: "Spring Sale is live: https://acme.example/spring" });
    expect(sent[2].body).toMatchObject({ chat_id: "@acme_news", text: "Spring Sale is live: https://acme.example/spring" });
    expectNoPlaceholders(sent);
  });

  it("a Slack channel the bot is not in fails the run with not_in_channel, before Discord and Telegram", async () => {
    const { key, scenario, agentId } = await deployed({ slack_channel: "#random", discord_channel_id: DISCORD_CHANNEL });
    const run = await runAgent(key, agentId, launch);
    expect(run.status).toBe("failed");
    expect(run.error_message).toContain("not_in_channel");
    expect(calls(await sentTo(scenario))).toEqual(["POST /chat.postMessage"]);
  });
});
