// The schedule templates of this group, deployed (their schedule armed) and run through their
// agent with the input a scheduled fire gives: daily-signups-digest counts the calendar day
// before the fire from the user's own API, scheduled-social-posts-discord posts the user's
// message to their channel; a refusal by the platform fails the run with its reason, once.
import { describe, expect, it } from "vitest";
import { calls, connect, expectNoPlaceholders, newTenant, runAgent, script, sentTo, useTemplate } from "./harness";

const fire = (due_at: string) => ({ trigger: "schedule", due_at, fired_by: "alarm" });

describe("daily-signups-digest", () => {
  async function deployed() {
    const tenant = await newTenant("signups");
    const http = await connect(tenant.key, "http", { base_url: tenant.base_url, auth_header_value: "Bearer sk_signups_0123456789" });
    const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-test-0123456789", base_url: tenant.base_url });
    const data = await useTemplate(tenant.key, "daily-signups-digest", {
      deploy: true,
      connections: { http, slack },
      variables: { report_channel: "#signups" },
    });
    expect(data.agent.monitoring.next_run_at).not.toBeNull();
    return { ...tenant, agentId: data.agent.agent_id as string };
  }

  it("asks the API for yesterday, midnight to midnight UTC, and posts the count to the chosen channel", async () => {
    const { key, scenario, agentId } = await deployed();
    await script(scenario, [{ body: [{ id: "u1" }, { id: "u2" }, { id: "u3" }, { id: "u4" }] }]);
    const run = await runAgent(key, agentId, fire("2026-11-24T08:00:00.000Z"));
    expect(run.status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["GET /signups", "POST /chat.postMessage"]);
    expect(sent[0]!.query).toEqual({ since: "2026-11-23T00:00:00.000Z", until: "2026-11-24T00:00:00.000Z" });
    expect(sent[0]!.headers.authorization).toBe("Bearer sk_signups_0123456789");
    expect(sent[1]!.body).toEqual({ channel: "#signups", text: "Signups on 2026-11-23: 4" });
    expectNoPlaceholders(sent);
  });

  it("fails without posting when the API refuses the key", async () => {
    const { key, scenario, agentId } = await deployed();
    await script(scenario, [{ status: 401, body: { error: "invalid_token", message: "The access token expired" } }]);
    const run = await runAgent(key, agentId, fire("2026-11-24T08:00:00.000Z"));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "signups" });
    expect(run.error_message).toContain("401");
    expect(run.steps.find((s: any) => s.step_id === "signups").attempts).toBe(1);
    expect(calls(await sentTo(scenario))).toEqual(["GET /signups"]);
  });
});

describe("scheduled-social-posts-discord", () => {
  const CHANNEL = "1100000000000000042";
  async function deployed() {
    const tenant = await newTenant("discord");
    const discord = await connect(tenant.key, "discord", { bot_token: "MTEwMDAw.test.0123456789", base_url: tenant.base_url });
    const data = await useTemplate(tenant.key, "scheduled-social-posts-discord", {
      deploy: true,
      connections: { discord },
      variables: { channel_id: CHANNEL, message: "Release notes for 2.4 are up: https://acme.example/blog/2-4" },
    });
    expect(data.agent.monitoring.next_run_at).not.toBeNull();
    return { ...tenant, agentId: data.agent.agent_id as string };
  }

  it("posts the user's message to their channel", async () => {
    const { key, scenario, agentId } = await deployed();
    const run = await runAgent(key, agentId, fire("2026-11-24T15:00:00.000Z"));
    expect(run.status).toBe("succeeded");
    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual([`POST /channels/${CHANNEL}/messages`]);
    // The nonce Discord enforces makes a retried step post the message once.
    expect(sent[0]!.body).toEqual({ content: "Release notes for 2.4 are up: https://acme.example/blog/2-4", nonce: expect.any(String), enforce_nonce: true });
    expect(sent[0]!.headers.authorization).toBe("Bot MTEwMDAw.test.0123456789");
    expectNoPlaceholders(sent);
  });

  it("fails at once with Discord's Missing Access when the bot cannot see the channel", async () => {
    const { key, scenario, agentId } = await deployed();
    await script(scenario, [{ status: 403, body: { message: "Missing Access", code: 50001 } }]);
    const run = await runAgent(key, agentId, fire("2026-11-24T15:00:00.000Z"));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "post" });
    expect(run.error_message).toContain("Missing Access");
    expect(run.steps[0].attempts).toBe(1);
    expect(calls(await sentTo(scenario))).toEqual([`POST /channels/${CHANNEL}/messages`]);
  });
});
