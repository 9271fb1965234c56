// web-lead-to-hubspot-deal-and-email, deployed and fed demo requests: the lead becomes a HubSpot
// contact with a deal in the chosen pipeline and stage, associated with it, named after the
// company and worth the budget the form gave; the lead is emailed the chosen booking page.
// HubSpot's refusal of a stage the pipeline does not have fails the run before any email.
import { describe, expect, it } from "vitest";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, newTenant, sentTo, useTemplate } from "./harness";
import { deliver } from "./hub-delivery";

async function deployed(dealstage: string) {
  const tenant = await newTenant("deal");
  const hubspot = await connect(tenant.key, "hubspot", { access_token: "pat-na1-deal-0123456789", base_url: tenant.base_url });
  const postmark = await connect(tenant.key, "postmark", { server_token: "pm-deal-token-0123456789", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "web-lead-to-hubspot-deal-and-email", {
    deploy: true,
    connections: { hubspot, postmark },
    variables: { pipeline: "default", dealstage, sender: "Tea Club Sales <sales@tea.example>", calendar_url: "https://tea.example/demo" },
  });
  return { ...tenant, agent: data.agent };
}

describe("web-lead-to-hubspot-deal-and-email", () => {
  it("opens a deal in the chosen stage for the new contact, worth the budget, and emails the booking page", async () => {
    const { key, scenario, agent } = await deployed("qualifiedtobuy");
    const run = await settled(key, await deliver(agent, { email: "ada@bigco.example", first_name: "Ada", company: "BigCo", budget: "$12,000" }));
    expect(run.status).toBe("succeeded");
    const quiet = await settled(key, await deliver(agent, { email: "solo@example.com" }));
    expect(quiet.status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual([
      "POST /crm/v3/objects/contacts",
      "POST /crm/v3/objects/deals",
      "POST /email",
      "POST /crm/v3/objects/contacts",
      "POST /crm/v3/objects/deals",
      "POST /email",
    ]);
    expect(sent[0].body).toEqual({ properties: { email: "ada@bigco.example", firstname: "Ada", company: "BigCo", lifecyclestage: "salesqualifiedlead" } });
    // The scenario's first contact: HubSpot's fake numbers them from 151.
    const contactId = "151";
    expect(sent[1].body).toEqual({
      properties: { dealname: "BigCo demo", amount: 12000, dealstage: "qualifiedtobuy", pipeline: "default" },
      associations: [{ to: { id: contactId }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 3 }] }],
    });
    expect(sent[2].body).toEqual({
      From: "Tea Club Sales <sales@tea.example>",
      To: "ada@bigco.example",
      Subject: "Your demo request",
      TextBody: "Hi Ada, thanks for asking for a demo. Pick a time that suits you: https://tea.example/demo",
      Tag: "demo-request",
      MessageStream: "outbound",
    });
    // No company, no budget: the deal is named after the email and worth 0.
    expect(sent[4].body.properties).toEqual({ dealname: "solo@example.com demo", amount: 0, dealstage: "qualifiedtobuy", pipeline: "default" });
    expect(sent[5].body.TextBody).toBe("Hi there, thanks for asking for a demo. Pick a time that suits you: https://tea.example/demo");
    expectNoPlaceholders(sent);
  });

  it("fails with HubSpot's reason for a stage the pipeline does not have, and emails nobody", async () => {
    const { key, scenario, agent } = await deployed("demo_booked");
    const run = await settled(key, await deliver(agent, { email: "ada@bigco.example", company: "BigCo" }));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "deal" });
    expect(run.error_message).toContain("demo_booked was not one of the allowed options");
    expect(calls(await sentTo(scenario))).toEqual(["POST /crm/v3/objects/contacts", "POST /crm/v3/objects/deals"]);
  });
});
