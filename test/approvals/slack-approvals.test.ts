import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expireDue } from "../../src/approvals/service";
import { call, expectProblem, json } from "../helpers/api";
import { signSlack } from "../helpers/provider-signatures";
import { FAKE, type Owner, approvalOf, askApproval, eventually, fakeRequests, newConnection, newOwner, scenarioName, scriptFake } from "./helpers";

const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";

async function slackOwner(config: Record<string, unknown> = { signing_secret: SIGNING_SECRET }) {
  const owner = await newOwner();
  const scenario = scenarioName("slack");
  const connectionId = await newConnection(owner.key, "slack", { bot_token: "xoxb-approvals-1234", base_url: `${FAKE()}/s/${scenario}`, ...config });
  return { owner, scenario, connectionId };
}

/** The form Slack posts when someone clicks one of the message's buttons (a block_actions payload). */
function clickBody(approvalId: string, action: "approval_approve" | "approval_deny", user = "U0ALICE", responseUrl?: string): string {
  const payload = {
    type: "block_actions",
    user: { id: user, username: "alice", team_id: "T1" },
    team: { id: "T1", domain: "acme" },
    container: { type: "message", message_ts: "1763800000.000100", channel_id: "C0GENERAL" },
    channel: { id: "C0GENERAL", name: "general" },
    trigger_id: "123.456.abc",
    ...(responseUrl ? { response_url: responseUrl } : {}),
    actions: [{ type: "button", action_id: action, block_id: `approval:${approvalId}`, value: approvalId, action_ts: "1763800001.000200" }],
  };
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

async function click(body: string, options: { secret?: string; timestamp?: number } = {}) {
  const signed = await signSlack({
    secret: options.secret ?? SIGNING_SECRET,
    body,
    timestamp: options.timestamp,
    contentType: "application/x-www-form-urlencoded",
  });
  return call("/v1/hooks/slack/interactions", { body: signed.body, headers: signed.headers });
}

const posted = async (scenario: string, path: string) => (await fakeRequests(scenario)).filter((r) => r.path === path);

async function decisionState(owner: Owner, id: string) {
  const approval = await approvalOf(owner, id);
  return { status: approval.status, decided_by: approval.decided_by };
}

describe("approvals in Slack", () => {
  it("posts the call with Approve and Deny buttons, and a signed click decides it and rewrites the message", async () => {
    const { owner, scenario, connectionId } = await slackOwner();
    const approval = await askApproval(owner, [{ via: "slack", connection_id: connectionId, channel: "#general" }]);

    const [message] = await posted(scenario, "/chat.postMessage");
    expect(message!.headers.authorization).toBe("Bearer xoxb-approvals-1234");
    expect(message!.body.channel).toBe("#general");
    expect(message!.body.text).toContain("hubspot_delete_contact");
    const blocks = message!.body.blocks as any[];
    const sections = blocks.filter((b) => b.type === "section").map((b) => b.text.text as string);
    expect(sections[0]).toContain("Agent “Weekly cleanup” wants to run `hubspot_delete_contact` (destructive)");
    // The arguments as code, with Slack's three markup characters escaped.
    expect(sections[1]).toMatch(/^```[\s\S]*"contact_id": "151"[\s\S]*```$/);
    expect(sections[1]).toContain("duplicate &lt;of 152&gt; &amp; stale");
    const actions = blocks.find((b) => b.type === "actions");
    expect(actions.elements).toEqual([
      { type: "button", action_id: "approval_approve", text: { type: "plain_text", text: "Approve" }, style: "primary", value: approval.id },
      { type: "button", action_id: "approval_deny", text: { type: "plain_text", text: "Deny" }, style: "danger", value: approval.id },
    ]);

    const answer = await click(clickBody(approval.id, "approval_approve"));
    expect(answer.status).toBe(200);
    expect(await decisionState(owner, approval.id)).toEqual({ status: "approved", decided_by: "slack:U0ALICE" });

    const [update] = await eventually(async () => {
      const updates = await posted(scenario, "/chat.update");
      return updates.length ? updates : undefined;
    }, "chat.update");
    // The message as posted (Slack's channel id and ts), now saying who decided, with no buttons left.
    expect(update!.body.channel).toBe("C0GENERAL");
    expect(update!.body.ts).toBe("1763800000.000100");
    expect((update!.body.blocks as any[]).some((b) => b.type === "actions")).toBe(false);
    expect(JSON.stringify(update!.body.blocks)).toContain("Approved by <@U0ALICE>");
    expect(update!.body.text).toContain("Approved by Slack user U0ALICE");
  });

  it("a second click decides nothing again and tells the person who clicked that it was decided", async () => {
    const { owner, scenario, connectionId } = await slackOwner();
    const approval = await askApproval(owner, [{ via: "slack", connection_id: connectionId, channel: "C0MARKETING" }]);
    expect((await click(clickBody(approval.id, "approval_deny", "U0BOB"))).status).toBe(200);
    expect(await decisionState(owner, approval.id)).toEqual({ status: "denied", decided_by: "slack:U0BOB" });

    const again = await click(clickBody(approval.id, "approval_approve", "U0ALICE", `${FAKE()}/s/${scenario}/hook`));
    expect(again.status).toBe(200);
    const body = await json(again);
    expect(body).toMatchObject({ response_type: "ephemeral", replace_original: false });
    expect(body.text).toContain("already denied by slack:U0BOB");
    expect(await decisionState(owner, approval.id)).toEqual({ status: "denied", decided_by: "slack:U0BOB" });
    // Slack shows a click's HTTP answer to nobody: the note goes to the payload's response_url too.
    const [reply] = await eventually(async () => {
      const replies = await posted(scenario, "/hook");
      return replies.length ? replies : undefined;
    }, "the ephemeral reply");
    expect(reply!.body).toMatchObject({ response_type: "ephemeral", replace_original: false });
  });

  it("refuses a bad signature, a stale timestamp, an unknown approval and a connection with no signing secret alike, deciding nothing", async () => {
    const { owner, connectionId } = await slackOwner();
    const approval = await askApproval(owner, [{ via: "slack", connection_id: connectionId, channel: "#general" }]);
    const body = clickBody(approval.id, "approval_approve");

    const refusals = [
      await click(body, { secret: "not-the-signing-secret" }),
      // Signed right, but six minutes ago.
      await click(body, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 }),
      await click(clickBody("apr_doesnotexist00", "approval_approve")),
      await call("/v1/hooks/slack/interactions", { body, headers: { "Content-Type": "application/x-www-form-urlencoded" } }),
    ];
    const problems = [];
    for (const response of refusals) problems.push(await expectProblem(response, 401, "unauthorized"));
    // One answer for all: nothing tells which approvals exist or which check failed.
    expect(new Set(problems.map((p) => p.detail)).size).toBe(1);
    expect(await decisionState(owner, approval.id)).toEqual({ status: "pending", decided_by: null });

    const unsigned = await slackOwner({});
    const other = await askApproval(unsigned.owner, [{ via: "slack", connection_id: unsigned.connectionId, channel: "#general" }]);
    await expectProblem(await click(clickBody(other.id, "approval_approve")), 401, "unauthorized");
    expect(await decisionState(unsigned.owner, other.id)).toEqual({ status: "pending", decided_by: null });
  });

  it("a message Slack refuses (channel_not_found) leaves the approval pending and decidable from the API", async () => {
    const { owner, scenario, connectionId } = await slackOwner();
    await scriptFake(scenario, [{ body: { ok: false, error: "channel_not_found" } }]);
    const approval = await askApproval(owner, [{ via: "slack", connection_id: connectionId, channel: "#nowhere" }]);
    expect(await posted(scenario, "/chat.postMessage")).toHaveLength(1);
    expect(await decisionState(owner, approval.id)).toEqual({ status: "pending", decided_by: null });

    const decided = await call(`/v1/approvals/${approval.id}/decision`, { token: owner.key, json: { decision: "approve" } });
    expect(decided.status).toBe(200);
    expect((await json(decided)).decided_by).toMatch(/^user:\d+$/);
    await owner.settle();
    // No message was posted, so there is none to rewrite.
    expect(await posted(scenario, "/chat.update")).toHaveLength(0);
  });

  it("an approval that expires loses its buttons too", async () => {
    const { owner, scenario, connectionId } = await slackOwner();
    const approval = await askApproval(owner, [{ via: "slack", connection_id: connectionId, channel: "#general" }], { ttlSeconds: 60 });
    await env.DB.prepare("update approvals set expires_at = ? where id = ?")
      .bind(Date.now() - 1000, approval.id)
      .run();
    expect((await expireDue(owner.ctx)).map((a) => a.id)).toEqual([approval.id]);
    await owner.settle();
    const [update] = await posted(scenario, "/chat.update");
    expect((update!.body.blocks as any[]).some((b) => b.type === "actions")).toBe(false);
    expect(JSON.stringify(update!.body.blocks)).toContain("Expired: nobody decided in time, so the call was not run.");
    // A click that comes after is told so, and decides nothing.
    const late = await click(clickBody(approval.id, "approval_approve"));
    expect((await json(late)).text).toContain("expired");
    expect((await approvalOf(owner, approval.id)).status).toBe("expired");
  });

  it("a decision made elsewhere (the API) rewrites the message too", async () => {
    const { owner, scenario, connectionId } = await slackOwner();
    const approval = await askApproval(owner, [{ via: "slack", connection_id: connectionId, channel: "#general" }]);
    const decided = await call(`/v1/approvals/${approval.id}/decision`, { token: owner.key, json: { decision: "deny", note: "not this week" } });
    expect(decided.status).toBe(200);
    const [update] = await eventually(async () => {
      const updates = await posted(scenario, "/chat.update");
      return updates.length ? updates : undefined;
    }, "chat.update");
    expect(JSON.stringify(update!.body.blocks)).toContain("Denied by the account's owner in the hub: not this week.");
  });
});
