// The manual templates of this group, deployed and run through their agent with the input a
// person gives: content-calendar-to-notion files the idea in the user's database, due
// lead_time_days ahead (14 here, not 7); telegram-channel-broadcast posts the announcement to the
// user's channel, its own text escaped for Telegram's HTML. Notion's and Telegram's refusals
// fail the run with their reason, once.
import { describe, expect, it } from "vitest";
import { calls, connect, expectNoPlaceholders, newTenant, runAgent, script, sentTo, useTemplate } from "./harness";

describe("content-calendar-to-notion", () => {
  const DATABASE = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9";
  async function deployed() {
    const tenant = await newTenant("calendar");
    const notion = await connect(tenant.key, "notion", { api_key: "ntn_test_0123456789abcdef", base_url: tenant.base_url });
    const data = await useTemplate(tenant.key, "content-calendar-to-notion", {
      deploy: true,
      connections: { notion },
      variables: { database_id: DATABASE, lead_time_days: 14 },
    });
    return { ...tenant, agentId: data.agent.agent_id as string };
  }

  it("files the idea as a page of the chosen database, due in lead_time_days", async () => {
    const { key, scenario, agentId } = await deployed();
    const started = Date.now();
    const run = await runAgent(key, agentId, { title: "Spring launch teaser", notes: "Two short videos and a blog post." });
    expect(run.status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /pages"]);
    const { parent, properties, children } = sent[0]!.body;
    expect(parent).toEqual({ database_id: DATABASE });
    expect(properties).toEqual({ Name: { title: [{ text: { content: "Spring launch teaser" } }] } });
    const paragraphs = children.map((block: any) => block.paragraph.rich_text[0].text.content);
    expect(paragraphs).toEqual([expect.stringMatching(/^Due \d{4}-\d{2}-\d{2}T/), "Two short videos and a blog post."]);
    const due = Date.parse(paragraphs[0].slice(4));
    expect(due - started).toBeGreaterThanOrEqual(14 * 86_400_000 - 1000);
    expect(due - Date.now()).toBeLessThanOrEqual(14 * 86_400_000 + 1000);
    expectNoPlaceholders(sent);
  });

  it("fails with Notion's reason when the database is not shared with the integration", async () => {
    const { key, scenario, agentId } = await deployed();
    const message = `Could not find database with ID: ${DATABASE}. Make sure the relevant pages and databases are shared with your integration.`;
    await script(scenario, [{ status: 404, body: { object: "error", status: 404, code: "object_not_found", message } }]);
    const run = await runAgent(key, agentId, { title: "Spring launch teaser" });
    expect(run).toMatchObject({ status: "failed", failed_step_id: "page" });
    expect(run.error_message).toContain("Could not find database with ID");
    expect(calls(await sentTo(scenario))).toEqual(["POST /pages"]);
  });
});

describe("telegram-channel-broadcast", () => {
  async function deployed() {
    const tenant = await newTenant("telegram");
    const telegram = await connect(tenant.key, "telegram", { bot_token: "123456:ABC-test-token", base_url: tenant.base_url });
    const data = await useTemplate(tenant.key, "telegram-channel-broadcast", { deploy: true, connections: { telegram }, variables: { chat_id: "@acme_news" } });
    return { ...tenant, agentId: data.agent.agent_id as string };
  }

  it("posts the headline in bold and the body to the chosen channel, their text escaped", async () => {
    const { key, scenario, agentId } = await deployed();
    const run = await runAgent(key, agentId, { headline: "Q&A tonight", body: "Bring questions about <templates> & agents." });
    expect(run.status).toBe("succeeded");
    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /bot123456:ABC-test-token/sendMessage"]);
    expect(sent[0]!.body).toEqual({
      chat_id: "@acme_news",
      text: "<b>Q&amp;A tonight</b>\nBring questions about &lt;templates&gt; &amp; agents.",
      parse_mode: "HTML",
    });
    expectNoPlaceholders(sent);
  });

  it("fails at once with Telegram's description when the chat does not exist", async () => {
    const { key, scenario, agentId } = await deployed();
    await script(scenario, [{ status: 400, body: { ok: false, error_code: 400, description: "Bad Request: chat not found" } }]);
    const run = await runAgent(key, agentId, { headline: "Launch", body: "Today." });
    expect(run).toMatchObject({ status: "failed", failed_step_id: "broadcast" });
    expect(run.error_message).toContain("chat not found");
    expect(run.steps.find((s: any) => s.step_id === "broadcast").attempts).toBe(1);
  });
});
