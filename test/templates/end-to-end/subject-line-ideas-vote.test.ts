// subject-line-ideas-vote, deployed (a manual trigger) and run through its agent: the model's three
// subject lines (checked against the schema, asked again when they do not fit) are posted as
// options numbered from 1 in the channel named; a channel the bot is not in fails the run.
import { describe, expect, it } from "vitest";
import { calls, completion, connect, expectNoPlaceholders, expectSucceeded, newTenant, runAgent, script, sentTo, useTemplate } from "./harness";

async function deployed(variables: Record<string, unknown>) {
  const tenant = await newTenant("subjects");
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-subjects-0123456789", base_url: tenant.base_url });
  await connect(tenant.key, "openai", { api_key: "sk-test-subjects-0123456789", base_url: tenant.base_url, model: "fake-gpt" });
  const data = await useTemplate(tenant.key, "subject-line-ideas-vote", { deploy: true, connections: { slack }, variables });
  return { ...tenant, agentId: data.agent.agent_id as string };
}

const three = JSON.stringify({ subjects: ["Spring is here", "20% off, today only", "Your spring picks"] });

describe("subject-line-ideas-vote", () => {
  it("posts the three subject lines as options 1 to 3 in the channel named, asking again when the JSON does not fit", async () => {
    const { key, scenario, agentId } = await deployed({ channel: "#general" });
    // Two subjects break the schema (three required): the step asks again.
    await script(scenario, [completion(JSON.stringify({ subjects: ["Only", "Two"] })), completion(three)]);
    expectSucceeded(await runAgent(key, agentId, { topic: "the spring sale" }));

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /chat/completions", "POST /chat/completions", ...Array(3).fill("POST /chat.postMessage")]);
    expect(sent[0].body.messages.at(-1).content).toContain("Three email subject lines for: the spring sale.");
    expect(sent.slice(2).map((r) => r.body)).toEqual([
      { channel: "#general", text: "Option 1: Spring is here" },
      { channel: "#general", text: "Option 2: 20% off, today only" },
      { channel: "#general", text: "Option 3: Your spring picks" },
    ]);
    expectNoPlaceholders(sent);
  });

  it("a channel the bot is not in fails the run with not_in_channel", async () => {
    const { key, scenario, agentId } = await deployed({ channel: "#random" });
    await script(scenario, [completion(three)]);
    const run = await runAgent(key, agentId, { topic: "the spring sale" });
    expect(run.status).toBe("failed");
    expect(run.error_message).toContain("not_in_channel");
    expect(calls(await sentTo(scenario))).toEqual(["POST /chat/completions", "POST /chat.postMessage"]);
  });
});
