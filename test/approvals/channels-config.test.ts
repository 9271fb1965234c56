import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { newWorkflow } from "../helpers/runs";
import { FAKE, newConnection } from "./helpers";

/** A user, a workflow to deploy, and a deploy with this agent_config. */
async function deployer() {
  const { key } = await newApiKey(await newUser());
  const workflow = await newWorkflow(key, { steps: [{ id: "id", type: "tool", tool: "uuid_generate", arguments: {} }] });
  const deploy = (agentConfig: Record<string, unknown>) =>
    call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: agentConfig } });
  return { key, deploy };
}

const notify = (...channels: unknown[]) => ({ approvals: { notify: channels } });

async function refused(response: Response, field: string, message: RegExp) {
  const problem = await expectProblem(response, 422, "validation_failed");
  expect(problem.errors).toEqual([expect.objectContaining({ field, message: expect.stringMatching(message) })]);
}

describe("agent_config.approvals", () => {
  it("accepts channels that can work: a Slack connection with a signing secret, an email connection with a sender, a webhook", async () => {
    const { key, deploy } = await deployer();
    const slack = await newConnection(key, "slack", { bot_token: "xoxb-config-1", signing_secret: "config-signing-secret", base_url: `${FAKE()}/s/config` });
    const resend = await newConnection(key, "resend", { api_key: "re_config_1", default_from: "hub@acme.example" });
    const postmark = await newConnection(key, "postmark", { server_token: "pm-config-1" });
    const response = await deploy(
      notify(
        { via: "slack", connection_id: slack, channel: "#approvals" },
        { via: "email", connection_id: resend, to: "ops@acme.example" },
        { via: "email", connection_id: postmark, to: "ops@acme.example", from: "Hub <hub@acme.example>" },
        { via: "webhook", url: "https://hooks.acme.example/approvals" },
      ),
    );
    expect(response.status).toBe(201);
    // The signing secret is a secret: masked like the bot token.
    const shown = await json(await call(`/v1/connections/${slack}`, { token: key }));
    expect(shown.config.signing_secret).toMatch(/^••••/);
    expect(JSON.stringify(shown)).not.toContain("config-signing-secret");
  });

  it("refuses channels that cannot work, naming the channel", async () => {
    const { key, deploy } = await deployer();
    const unsigned = await newConnection(key, "slack", { bot_token: "xoxb-config-2" });
    const postmark = await newConnection(key, "postmark", { server_token: "pm-config-2" });
    const other = await newApiKey(await newUser());
    const theirs = await newConnection(other.key, "resend", { api_key: "re_theirs", default_from: "them@acme.example" });

    await refused(await deploy(notify({ via: "slack", connection_id: unsigned, channel: "#a" })), "agent_config.approvals.notify.0", /signing_secret/);
    await refused(
      await deploy(notify({ via: "webhook", url: "https://x.example" }, { via: "email", connection_id: unsigned, to: "a@acme.example" })),
      "agent_config.approvals.notify.1",
      /slack connection; email goes through resend, sendgrid, postmark, mailgun, brevo/,
    );
    await refused(
      await deploy(notify({ via: "email", connection_id: postmark, to: "a@acme.example" })),
      "agent_config.approvals.notify.0",
      /no default sender/,
    );
    await refused(await deploy(notify({ via: "email", connection_id: theirs, to: "a@acme.example" })), "agent_config.approvals.notify.0", /no connection/);
    await refused(await deploy(notify({ via: "webhook", url: "http://169.254.169.254/latest" })), "agent_config.approvals.notify.0", /metadata|169\.254/);
    await refused(await deploy(notify({ via: "sms", to: "+15550100" })), "agent_config.approvals.notify.0.via", /./);
    await refused(await deploy({ approvals: { notify: [], extra: true } }), "agent_config.approvals", /extra/);
  });

  it("is checked when an agent's config is changed too", async () => {
    const { key, deploy } = await deployer();
    const agent = await json(await deploy({}));
    const unsigned = await newConnection(key, "slack", { bot_token: "xoxb-config-3" });
    const response = await call(`/v1/agents/${agent.agent_id}`, {
      method: "PATCH",
      token: key,
      json: { agent_config: notify({ via: "slack", connection_id: unsigned, channel: "#a" }) },
    });
    await refused(response, "agent_config.approvals.notify.0", /signing_secret/);
  });
});
