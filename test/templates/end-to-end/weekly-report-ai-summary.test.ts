// weekly-report-ai-summary, deployed on its Monday schedule and run through its agent: the model
// is given every piece published in the last 7 days (titles and links, not raw JSON) and its
// summary goes to Slack; a week without pieces asks no model.
import { describe, expect, it } from "vitest";
import { calls, completion, connect, expectNoPlaceholders, expectSucceeded, newTenant, runAgent, script, sentTo, useTemplate } from "./harness";
import { DATABASE_ID, contentPage, queryAnswer } from "./notion-pages";

async function deployed(variables: Record<string, unknown>) {
  const tenant = await newTenant("aisummary");
  const notion = await connect(tenant.key, "notion", { api_key: "ntn_0123456789abcdefghij", base_url: tenant.base_url });
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-summary-0123456789", base_url: tenant.base_url });
  // The model steps use the person's own model connection.
  await connect(tenant.key, "openai", { api_key: "sk-test-summary-0123456789", base_url: tenant.base_url, model: "fake-gpt" });
  const data = await useTemplate(tenant.key, "weekly-report-ai-summary", { deploy: true, connections: { notion, slack }, variables });
  expect(data.agent).toMatchObject({ trigger_type: "schedule", trigger: { type: "schedule" } });
  return { ...tenant, agentId: data.agent.agent_id as string };
}

describe("weekly-report-ai-summary", () => {
  it("summarises every piece of the last 7 days, past Notion's first page, and posts the summary", async () => {
    const { key, scenario, agentId } = await deployed({ database_id: DATABASE_ID, channel: "#weekly", status_property: "Stage" });
    const first = Array.from({ length: 50 }, (_, i) => contentPage(i + 1, `Post ${i + 1}`));
    await script(scenario, [
      queryAnswer(first, "cursor-page-2"),
      queryAnswer([contentPage(51, "Launch recap")], null),
      completion("• 51 pieces shipped\n• The launch recap led"),
    ]);
    expectSucceeded(await runAgent(key, agentId));

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual([
      `POST /databases/${DATABASE_ID}/query`,
      `POST /databases/${DATABASE_ID}/query`,
      "POST /chat/completions",
      "POST /chat.postMessage",
    ]);
    const [page1, page2, model, post] = sent;
    expect(page1.body.filter.and).toEqual([
      { property: "Stage", status: { equals: "Published" } },
      { property: "Publish date", date: { on_or_after: expect.any(String) } },
    ]);
    expect(page2.body.start_cursor).toBe("cursor-page-2");

    const prompt = model.body.messages.at(-1).content as string;
    expect(prompt.split("\n")[0]).toBe("Summarise the 51 pieces published in the last 7 days:");
    expect(prompt).toContain(`- Post 1 (${contentPage(1, "").url})`);
    expect(prompt).toContain(`- Launch recap (${contentPage(51, "").url})`);
    expect(prompt).not.toContain('"properties"');
    expect(model.body.messages[0]).toMatchObject({ role: "system", content: expect.stringContaining("five bullet points") });

    expect(post.body).toEqual({ channel: "#weekly", text: "The last 7 days in content:\n• 51 pieces shipped\n• The launch recap led" });
    expectNoPlaceholders(sent);
  });

  it("a week without pieces posts that, and asks no model", async () => {
    const { key, scenario, agentId } = await deployed({ database_id: DATABASE_ID });
    await script(scenario, [queryAnswer([], null)]);
    expectSucceeded(await runAgent(key, agentId));
    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual([`POST /databases/${DATABASE_ID}/query`, "POST /chat.postMessage"]);
    expect(sent[1].body).toEqual({ channel: "#content", text: "Nothing was published in the last 7 days." });
  });

  it("a model key OpenAI refuses fails the run with OpenAI's message, and Slack hears nothing", async () => {
    const { key, scenario, agentId } = await deployed({ database_id: DATABASE_ID });
    await script(scenario, [
      queryAnswer([contentPage(1, "Only post")], null),
      {
        status: 401,
        body: { error: { message: "Incorrect API key provided: sk-test-*****6789.", type: "invalid_request_error", param: null, code: "invalid_api_key" } },
      },
    ]);
    const run = await runAgent(key, agentId);
    expect(run.status).toBe("failed");
    expect(run.error_message).toContain("Incorrect API key provided");
    expect(calls(await sentTo(scenario))).toEqual([`POST /databases/${DATABASE_ID}/query`, "POST /chat/completions"]);
  });
});
