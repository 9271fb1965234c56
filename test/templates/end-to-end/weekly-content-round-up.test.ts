// weekly-content-round-up, deployed on its Friday schedule and run through its agent: "this week"
// is the last 7 days of the named date property, every published row is read (the query follows
// Notion's cursor past the first page), and Slack gets the linked titles.
import { describe, expect, it } from "vitest";
import { calls, connect, expectNoPlaceholders, expectSucceeded, newTenant, runAgent, script, sentTo, useTemplate } from "./harness";
import { DATABASE_ID, contentPage, notShared, queryAnswer } from "./notion-pages";

async function deployed(variables: Record<string, unknown>) {
  const tenant = await newTenant("roundup");
  const notion = await connect(tenant.key, "notion", { api_key: "ntn_0123456789abcdefghij", base_url: tenant.base_url });
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-roundup-0123456789", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "weekly-content-round-up", { deploy: true, connections: { notion, slack }, variables });
  expect(data.agent).toMatchObject({ trigger_type: "schedule", trigger: { type: "schedule" } });
  return { ...tenant, agentId: data.agent.agent_id as string };
}

describe("weekly-content-round-up", () => {
  it("reads every page published in the last 7 days, past Notion's first page, and posts them all", async () => {
    const { key, scenario, agentId } = await deployed({ database_id: DATABASE_ID, channel: "#content-team", date_property: "Went live" });
    const first = Array.from({ length: 50 }, (_, i) => contentPage(i + 1, `Post ${i + 1}`, "Went live"));
    await script(scenario, [queryAnswer(first, "cursor-page-2"), queryAnswer([contentPage(51, "Q&A <live>", "Went live")], null)]);
    const startedAt = Date.now();
    const run = await runAgent(key, agentId);
    expectSucceeded(run);

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual([`POST /databases/${DATABASE_ID}/query`, `POST /databases/${DATABASE_ID}/query`, "POST /chat.postMessage"]);
    const [page1, page2, post] = sent;
    const since = page1.body.filter.and[1].date.on_or_after;
    // The last 7 days, counted back from the run.
    expect(Math.abs(Date.parse(since) - (startedAt - 7 * 86_400_000))).toBeLessThan(60_000);
    expect(page1.body).toEqual({
      filter: {
        and: [
          { property: "Status", status: { equals: "Published" } },
          { property: "Went live", date: { on_or_after: since } },
        ],
      },
      sorts: [{ property: "Went live", direction: "ascending" }],
      page_size: 50,
    });
    expect(page2.body).toEqual({ ...page1.body, start_cursor: "cursor-page-2" });

    expect(post.body.channel).toBe("#content-team");
    const lines = post.body.text.split("\n");
    expect(lines[0]).toBe("Published in the last 7 days (51):");
    expect(lines).toHaveLength(52);
    expect(lines[1]).toBe(`• <${contentPage(1, "", "Went live").url}|Post 1>`);
    // Slack's mrkdwn escapes: a title never breaks its link.
    expect(lines[51]).toBe(`• <${contentPage(51, "", "Went live").url}|Q&amp;A &lt;live&gt;>`);
    expectNoPlaceholders(sent);
  });

  it("says so when nothing was published", async () => {
    const { key, scenario, agentId } = await deployed({ database_id: DATABASE_ID });
    await script(scenario, [queryAnswer([], null)]);
    expectSucceeded(await runAgent(key, agentId));
    const sent = await sentTo(scenario);
    expect(sent[0].body.filter.and[1].property).toBe("Publish date");
    expect(sent.at(-1)?.body).toEqual({ channel: "#content", text: "Nothing was published in the last 7 days." });
  });

  it("a database not shared with the integration fails the run with Notion's message, and Slack hears nothing", async () => {
    const { key, scenario, agentId } = await deployed({ database_id: DATABASE_ID });
    await script(scenario, [notShared(DATABASE_ID)]);
    const run = await runAgent(key, agentId);
    expect(run.status).toBe("failed");
    expect(run.error_message).toContain(`Could not find database with ID: ${DATABASE_ID}`);
    expect(run.error_message).toContain("share the page or database with the integration");
    expect(calls(await sentTo(scenario))).toEqual([`POST /databases/${DATABASE_ID}/query`]);
  });
});
