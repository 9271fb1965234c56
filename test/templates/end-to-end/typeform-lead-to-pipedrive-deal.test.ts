// typeform-lead-to-pipedrive-deal, deployed and fed Typeform form responses: a new lead becomes a
// Pipedrive person, a returning one is found by email, and either way gets a deal in the chosen
// stage worth the chosen value, then a Brevo confirmation from the chosen sender. The stage has no
// default (using the template without it is refused); a stage Pipedrive does not have fails the
// run with Pipedrive's words before any email, and a response without the email question fails it
// before anything is sent.
import { describe, expect, it } from "vitest";
import { call, expectProblem } from "../../helpers/api";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, expectSucceeded, newTenant, sentTo, useTemplate } from "./harness";
import { typeformSender } from "./provider-delivery";

/** Typeform answers: each carries its value under its type's name, and the question's ref. */
const email = (ref: string, value: string) => ({ type: "email", email: value, field: { id: "f1", type: "email", ref } });
const text = (ref: string, value: string) => ({ type: "text", text: value, field: { id: `f-${ref}`, type: "short_text", ref } });
const choice = (ref: string, label: string) => ({ type: "choice", choice: { label }, field: { id: `f-${ref}`, type: "multiple_choice", ref } });

async function connected() {
  const tenant = await newTenant("pipedrive");
  const pipedrive = await connect(tenant.key, "pipedrive", { company_domain: "tea", api_token: "pd-0123456789abcdef0123", base_url: tenant.base_url });
  const brevo = await connect(tenant.key, "brevo", { api_key: "xkeysib-0123456789abcdef-TeaClub", base_url: `${tenant.base_url}/brevo/v3` });
  return { ...tenant, connections: { pipedrive, brevo } };
}

async function deployed(stage_id: number) {
  const tenant = await connected();
  const data = await useTemplate(tenant.key, "typeform-lead-to-pipedrive-deal", {
    deploy: true,
    connections: tenant.connections,
    variables: {
      email_ref: "work_email",
      name_ref: "full_name",
      company_ref: "company",
      stage_id,
      deal_value: 4500,
      currency: "EUR",
      sender_email: "hello@tea.example",
      sender_name: "Tea Club",
      subject: "Thanks, we got your request",
    },
  });
  return { ...tenant, send: await typeformSender(tenant.key, data.agent.agent_id) };
}

describe("typeform-lead-to-pipedrive-deal", () => {
  it("makes a new lead a person with a deal in the chosen stage and value, puts a returning lead's deal on their record, and thanks them from the sender", async () => {
    const { key, scenario, send } = await deployed(2);
    expectSucceeded(await settled(key, await send([text("full_name", "Ada Lovelace"), email("work_email", "ada@bigco.example"), choice("company", "BigCo")])));
    // The same lead again, without a name or company this time.
    expectSucceeded(await settled(key, await send([email("work_email", "ada@bigco.example")])));

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual([
      "GET /api/v2/persons/search",
      "POST /api/v2/persons",
      "POST /api/v2/deals",
      "POST /brevo/v3/smtp/email",
      "GET /api/v2/persons/search",
      "POST /api/v2/deals",
      "POST /brevo/v3/smtp/email",
    ]);
    expect(sent[0].headers["x-api-token"]).toBe("pd-0123456789abcdef0123");
    expect(sent[0].query).toEqual({ term: "ada@bigco.example", fields: "email", exact_match: "true", limit: "1" });
    expect(sent[1].body).toEqual({ name: "Ada Lovelace", emails: [{ value: "ada@bigco.example", primary: true, label: "work" }] });
    // The scenario's first person: Pipedrive's fake numbers them from 101.
    expect(sent[2].body).toEqual({ title: "BigCo deal", value: 4500, currency: "EUR", person_id: 101, stage_id: 2 });
    expect(sent[3].headers["api-key"]).toBe("xkeysib-0123456789abcdef-TeaClub");
    expect(sent[3].body).toEqual({
      sender: { email: "hello@tea.example", name: "Tea Club" },
      to: [{ email: "ada@bigco.example" }],
      subject: "Thanks, we got your request",
      textContent: "Hi Ada, thanks for your message. We will get back to you within one business day.",
      tags: ["typeform-lead"],
    });
    // Found by email: no second person, the deal goes on Ada's, titled after the email.
    expect(sent[5].body).toEqual({ title: "ada@bigco.example deal", value: 4500, currency: "EUR", person_id: 101, stage_id: 2 });
    expect(sent[6].body.textContent).toBe("Hi there, thanks for your message. We will get back to you within one business day.");
    expectNoPlaceholders(sent);
  });

  it("is not used without the stage, which has no default", async () => {
    const { key, connections } = await connected();
    const refused = await expectProblem(
      await call("/v1/templates/typeform-lead-to-pipedrive-deal/use", { token: key, json: { deploy: true, connections } }),
      422,
      "validation_failed",
    );
    expect(refused.errors).toEqual([{ location: "body", field: "variables.stage_id", message: expect.stringContaining("Pipedrive stage") }]);
  });

  it("fails with Pipedrive's words for a stage it does not have, after the person was added, and emails nobody", async () => {
    const { key, scenario, send } = await deployed(9);
    const run = await settled(key, await send([text("full_name", "Ada Lovelace"), email("work_email", "ada@bigco.example")]));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "deal" });
    expect(run.error_message).toContain("Stage with id 9 does not exist.");
    expect(calls(await sentTo(scenario))).toEqual(["GET /api/v2/persons/search", "POST /api/v2/persons", "POST /api/v2/deals"]);
  });

  it("fails without sending anything when the response has no answer to the email question", async () => {
    const { key, scenario, send } = await deployed(2);
    const run = await settled(key, await send([text("full_name", "Ada Lovelace"), email("email", "ada@bigco.example")]));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "lead" });
    expect(run.error_message).toContain("no answer to the question work_email");
    expect(await sentTo(scenario)).toEqual([]);
  });
});
