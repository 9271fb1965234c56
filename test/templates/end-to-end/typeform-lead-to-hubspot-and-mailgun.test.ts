// typeform-lead-to-hubspot-and-mailgun, deployed and fed Typeform form responses: the answers to
// the questions whose refs the user named become a HubSpot lead and a Mailgun thank-you; a
// response without the email question fails the run before anything is sent, and Mailgun's
// refusal fails it with Mailgun's message.
import { describe, expect, it } from "vitest";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, newTenant, script, sentTo, useTemplate } from "./harness";
import { formBody, typeformSender } from "./provider-delivery";

/** Typeform answers: each carries its value under its type's name, and the question's ref. */
const email = (ref: string, value: string) => ({ type: "email", email: value, field: { id: "f1", type: "email", ref } });
const text = (ref: string, value: string) => ({ type: "text", text: value, field: { id: `f-${ref}`, type: "short_text", ref } });
const choice = (ref: string, label: string) => ({ type: "choice", choice: { label }, field: { id: `f-${ref}`, type: "multiple_choice", ref } });

async function deployed() {
  const tenant = await newTenant("typeform");
  const hubspot = await connect(tenant.key, "hubspot", { access_token: "pat-na1-test-0123456789", base_url: tenant.base_url });
  const mailgun = await connect(tenant.key, "mailgun", { api_key: "key-0123456789abcdef0123456789abcdef", domain: "mg.acme.test", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "typeform-lead-to-hubspot-and-mailgun", {
    deploy: true,
    connections: { hubspot, mailgun },
    variables: {
      email_ref: "work_email",
      first_name_ref: "name",
      company_ref: "company_size",
      sender: "Acme Sales <sales@mg.acme.test>",
      subject: "Thanks, we got your request",
    },
  });
  return { ...tenant, send: await typeformSender(tenant.key, data.agent.agent_id) };
}

describe("typeform-lead-to-hubspot-and-mailgun", () => {
  it("makes the answers to the named questions a HubSpot lead and thanks the lead from the chosen sender", async () => {
    const { key, scenario, send } = await deployed();
    const run = await settled(key, await send([text("name", "Ada"), email("work_email", "ada@bigco.example"), choice("company_size", "BigCo")]));
    expect(run.status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /crm/v3/objects/contacts", "POST /v3/mg.acme.test/messages"]);
    expect(sent[0].body).toEqual({ properties: { email: "ada@bigco.example", firstname: "Ada", company: "BigCo", lifecyclestage: "lead" } });
    expect(formBody(sent[1])).toEqual({
      from: "Acme Sales <sales@mg.acme.test>",
      to: "ada@bigco.example",
      subject: "Thanks, we got your request",
      text: "Hi Ada, thanks for your message. We will get back to you within one business day.",
      "o:tag": "typeform-lead",
    });
    expectNoPlaceholders(sent);
  });

  it("fails without sending anything when the response has no answer to the email question", async () => {
    const { key, scenario, send } = await deployed();
    const run = await settled(key, await send([text("name", "Ada"), email("email", "ada@bigco.example")]));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "lead" });
    expect(run.error_message).toContain("no answer to the question work_email");
    expect(await sentTo(scenario)).toEqual([]);
  });

  it("fails with Mailgun's message when it refuses the email, after the contact was made", async () => {
    const { key, scenario, send } = await deployed();
    await script(scenario, [
      { status: 201, body: { id: "901", properties: { email: "ada@bigco.example" }, createdAt: "2026-11-22T09:00:00Z" } },
      { status: 400, body: { message: "to parameter is not a valid address. please check documentation" } },
    ]);
    const run = await settled(key, await send([email("work_email", "ada@bigco.example")]));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "thanks" });
    expect(run.error_message).toContain("to parameter is not a valid address");
    expect(calls(await sentTo(scenario))).toEqual(["POST /crm/v3/objects/contacts", "POST /v3/mg.acme.test/messages"]);
  });
});
