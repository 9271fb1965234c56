// signup-to-sendgrid-list-and-welcome, deployed and fed signups: each subscriber is added to the
// chosen SendGrid list and welcomed from the chosen sender; SendGrid's refusal of an unverified
// sender fails the run with its reason, after the contact was added.
import { describe, expect, it } from "vitest";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, newTenant, script, sentTo, useTemplate } from "./harness";
import { deliver } from "./hub-delivery";

const LIST = "0c4c1a3d-1b1f-4e4e-9a51-0a1b2c3d4e51";

async function deployed() {
  const tenant = await newTenant("sgsignup");
  const sendgrid = await connect(tenant.key, "sendgrid", { api_key: "SG.test-signup.0123456789abcdef", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "signup-to-sendgrid-list-and-welcome", {
    deploy: true,
    connections: { sendgrid },
    variables: { list_id: LIST, sender: "letters@tea.example", subject: "You're in: Tea Letters" },
  });
  return { ...tenant, agent: data.agent };
}

describe("signup-to-sendgrid-list-and-welcome", () => {
  it("adds each subscriber to the chosen list and welcomes them from the chosen sender", async () => {
    const { key, scenario, agent } = await deployed();
    expect((await settled(key, await deliver(agent, { email: "ada@example.com", first_name: "Ada" }))).status).toBe("succeeded");
    expect((await settled(key, await deliver(agent, { email: "anon@example.com" }))).status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["PUT /v3/marketing/contacts", "POST /v3/mail/send", "PUT /v3/marketing/contacts", "POST /v3/mail/send"]);
    expect(sent[0].body).toEqual({ list_ids: [LIST], contacts: [{ email: "ada@example.com", first_name: "Ada" }] });
    const welcome = (to: string, name: string) => ({
      personalizations: [{ to: [{ email: to }] }],
      from: { email: "letters@tea.example" },
      subject: "You're in: Tea Letters",
      content: [{ type: "text/html", value: `<p>Hi ${name}, you are on the list. Expect our next issue soon.</p>` }],
      categories: ["newsletter-welcome"],
    });
    expect(sent[1].body).toEqual(welcome("ada@example.com", "Ada"));
    expect(sent[2].body).toEqual({ list_ids: [LIST], contacts: [{ email: "anon@example.com", first_name: "" }] });
    expect(sent[3].body).toEqual(welcome("anon@example.com", "there"));
    expectNoPlaceholders(sent);
  });

  it("fails with SendGrid's reason when the sender is not a verified identity", async () => {
    const { key, scenario, agent } = await deployed();
    const message =
      "The from address does not match a verified Sender Identity. Mail cannot be sent until this error is resolved. Visit https://sendgrid.com/docs/for-developers/sending-email/sender-identity/ to see the Sender Identity requirements";
    await script(scenario, [
      { status: 202, body: { job_id: "2387e363-4104-4225-8960-4a5758492351" } },
      { status: 403, body: { errors: [{ message, field: "from", help: null }] } },
    ]);
    const run = await settled(key, await deliver(agent, { email: "ada@example.com" }));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "welcome" });
    expect(run.error_message).toContain("from: The from address does not match a verified Sender Identity");
    expect(calls(await sentTo(scenario))).toEqual(["PUT /v3/marketing/contacts", "POST /v3/mail/send"]);
  });
});
