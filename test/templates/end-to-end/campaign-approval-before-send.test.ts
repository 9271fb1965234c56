// campaign-approval-before-send, deployed (a manual trigger) and run through its agent: the model's
// draft goes to the review channel named, nothing is mailed until campaign.approved arrives, and
// then the draft is sent; no answer in two days, or a review channel the bot is not in, fails the
// run with nothing sent.
import { describe, expect, it } from "vitest";
import { call } from "../../helpers/api";
import { settled } from "../../helpers/runs";
import {
  calls,
  completion,
  connect,
  expectNoPlaceholders,
  expectSucceeded,
  newTenant,
  script,
  sentTo,
  startAgent,
  stepReaches,
  timePasses,
  useTemplate,
} from "./harness";

const DRAFT = "<p>Spring is here: 20% off everything for our regulars.</p>";
const campaign = { brief: "Spring sale, 20% off", audience: "returning customers", to: "list@acme.example", subject: "Spring sale" };

async function deployed(variables: Record<string, unknown>) {
  const tenant = await newTenant("approval");
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-approval-0123456789", base_url: tenant.base_url });
  const resend = await connect(tenant.key, "resend", { api_key: "re_test_approval_0123456789", base_url: tenant.base_url });
  await connect(tenant.key, "openai", { api_key: "sk-test-approval-0123456789", base_url: tenant.base_url, model: "fake-gpt" });
  const data = await useTemplate(tenant.key, "campaign-approval-before-send", { deploy: true, connections: { slack, resend }, variables });
  await script(tenant.scenario, [completion(DRAFT)]);
  return { ...tenant, agentId: data.agent.agent_id as string };
}

describe("campaign-approval-before-send", () => {
  it("sends the draft to review, waits for campaign.approved, then mails it from the sender named", async () => {
    const { key, scenario, agentId } = await deployed({ review_channel: "#marketing", sender: "Acme News <news@acme.example>" });
    const id = await startAgent(key, agentId, campaign);
    await stepReaches(id, "approve", "waiting");
    expect(calls(await sentTo(scenario))).toEqual(["POST /chat/completions", "POST /chat.postMessage"]);

    const approved = await call(`/v1/executions/${id}/events`, { token: key, json: { event: "campaign.approved", payload: { by: "maria" } } });
    expect(approved.status).toBeLessThan(300);
    expectSucceeded(await settled(key, id));

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /chat/completions", "POST /chat.postMessage", "POST /emails"]);
    expect(sent[0].body.messages.at(-1).content).toBe("Write the email for this campaign: Spring sale, 20% off. Audience: returning customers.");
    expect(sent[1].body).toEqual({ channel: "#marketing", text: `Draft for returning customers (run ${id}) is waiting for approval:\n${DRAFT}` });
    expect(sent[2].body).toMatchObject({ from: "Acme News <news@acme.example>", to: "list@acme.example", subject: "Spring sale", html: DRAFT });
    expectNoPlaceholders(sent);
  });

  it("no approval within two days fails the run, and nothing is mailed", async () => {
    const { key, scenario, agentId } = await deployed({});
    const id = await startAgent(key, agentId, campaign);
    await stepReaches(id, "approve", "waiting");
    await timePasses(id, "approve");
    const run = await settled(key, id);
    expect(run.status).toBe("failed");
    expect(run.error_message).toContain('No "campaign.approved" event arrived within 172800 s.');
    expect(calls(await sentTo(scenario))).toEqual(["POST /chat/completions", "POST /chat.postMessage"]);
  });

  it("a review channel the bot is not in fails the run with not_in_channel, before any wait or send", async () => {
    const { key, scenario, agentId } = await deployed({ review_channel: "#random" });
    const run = await settled(key, await startAgent(key, agentId, campaign));
    expect(run.status).toBe("failed");
    expect(run.error_message).toContain("not_in_channel");
    expect(calls(await sentTo(scenario))).toEqual(["POST /chat/completions", "POST /chat.postMessage"]);
  });
});
