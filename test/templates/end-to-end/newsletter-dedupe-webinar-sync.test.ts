// The lead and list templates of this group, deployed and fed signed deliveries, against the
// HubSpot and Mailchimp fakes: newsletter-signup-to-mailchimp adds a pending member to the
// user's audience, deduplicated-lead-intake creates a lead once and skips it after, and
// webinar-attendance-sync creates an unknown attendee and marks a known one; each platform's
// refusal fails the run with its own reason.
import { describe, expect, it } from "vitest";
import { settled } from "../../helpers/runs";
import { deliver } from "./hub-delivery";
import { calls, connect, expectNoPlaceholders, newTenant, script, sentTo, useTemplate } from "./harness";

async function md5(text: string) {
  const digest = await crypto.subtle.digest("MD5", new TextEncoder().encode(text.toLowerCase()));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const hubspotInvalidEmail = {
  status: 400,
  body: {
    status: "error",
    message:
      'Property values were not valid: [{"isValid":false,"message":"Email address ada@example is invalid","error":"INVALID_EMAIL","name":"email","localizedErrorMessage":"Email address ada@example is invalid"}]',
    correlationId: "8b3c1f2e-5a6d-4e7f-9a0b-1c2d3e4f5a6b",
    category: "VALIDATION_ERROR",
  },
};

describe("newsletter-signup-to-mailchimp", () => {
  const LIST = "b2c3d4e5f6";
  async function deployed() {
    const tenant = await newTenant("newsletter");
    const mailchimp = await connect(tenant.key, "mailchimp", { api_key: "0123456789abcdef0123456789abcdef-us21", base_url: tenant.base_url });
    const data = await useTemplate(tenant.key, "newsletter-signup-to-mailchimp", { deploy: true, connections: { mailchimp }, variables: { list_id: LIST } });
    return { ...tenant, agent: data.agent };
  }

  it("adds the signup to the chosen audience as pending, with a first name when the form has one", async () => {
    const { key, scenario, agent } = await deployed();
    expect((await settled(key, await deliver(agent, { email: "ada@example.com", first_name: "Ada" }))).status).toBe("succeeded");
    expect((await settled(key, await deliver(agent, { email: "grace@example.com" }))).status).toBe("succeeded");
    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual([`PUT /lists/${LIST}/members/${await md5("ada@example.com")}`, `PUT /lists/${LIST}/members/${await md5("grace@example.com")}`]);
    expect(sent.map((r) => r.body)).toEqual([
      { email_address: "ada@example.com", status_if_new: "pending", merge_fields: { FNAME: "Ada" } },
      { email_address: "grace@example.com", status_if_new: "pending", merge_fields: { FNAME: "" } },
    ]);
    expectNoPlaceholders(sent);
  });

  it("fails at once with Mailchimp's reason for an address that was permanently deleted", async () => {
    const { key, scenario, agent } = await deployed();
    await script(scenario, [
      {
        status: 400,
        body: {
          type: "https://mailchimp.com/developer/marketing/docs/errors/",
          title: "Forgotten Email Not Subscribed",
          status: 400,
          detail: "ada@example.com was permanently deleted and cannot be re-imported. The contact must re-subscribe to get back on the list.",
          instance: "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
        },
      },
    ]);
    const run = await settled(key, await deliver(agent, { email: "ada@example.com", first_name: "Ada" }));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "subscribe" });
    expect(run.error_message).toContain("Forgotten Email Not Subscribed: ada@example.com was permanently deleted");
    expect(run.steps[0].attempts).toBe(1);
    expect((await sentTo(scenario)).length).toBe(1);
  });
});

describe("deduplicated-lead-intake", () => {
  async function deployed() {
    const tenant = await newTenant("dedupe");
    const hubspot = await connect(tenant.key, "hubspot", { access_token: "pat-na1-test-0123456789", base_url: tenant.base_url });
    const data = await useTemplate(tenant.key, "deduplicated-lead-intake", { deploy: true, connections: { hubspot } });
    return { ...tenant, agent: data.agent };
  }

  it("creates a new lead once and skips it when it comes again", async () => {
    const { key, scenario, agent } = await deployed();
    const first = await settled(key, await deliver(agent, { email: "ada@example.com", first_name: "Ada" }));
    expect(first.steps.map((s: any) => s.step_id)).toEqual(["seen", "is_new", "create", "remember"]);
    const again = await settled(key, await deliver(agent, { email: "ada@example.com", first_name: "Ada", note: "second visit" }));
    expect(again.status).toBe("succeeded");
    expect(again.steps.map((s: any) => s.step_id)).toEqual(["seen", "is_new"]);
    const other = await settled(key, await deliver(agent, { email: "grace@example.com" }));
    expect(other.status).toBe("succeeded");

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /crm/v3/objects/contacts", "POST /crm/v3/objects/contacts"]);
    expect(sent.map((r) => r.body)).toEqual([
      { properties: { email: "ada@example.com", firstname: "Ada" } },
      { properties: { email: "grace@example.com", firstname: "" } },
    ]);
    expectNoPlaceholders(sent);
  });

  it("does not remember a lead HubSpot refused, so the next delivery tries again", async () => {
    const { key, scenario, agent } = await deployed();
    await script(scenario, [hubspotInvalidEmail]);
    const refused = await settled(key, await deliver(agent, { email: "ada@example.com", first_name: "Ada" }));
    expect(refused).toMatchObject({ status: "failed", failed_step_id: "create" });
    expect(refused.error_message).toContain("Email address ada@example is invalid");
    expect(refused.steps.find((s: any) => s.step_id === "create").attempts).toBe(1);

    const retried = await settled(key, await deliver(agent, { email: "ada@example.com", first_name: "Ada", attempt: 2 }));
    expect(retried.status).toBe("succeeded");
    expect(calls(await sentTo(scenario))).toEqual(["POST /crm/v3/objects/contacts", "POST /crm/v3/objects/contacts"]);
  });
});

describe("webinar-attendance-sync", () => {
  async function deployed() {
    const tenant = await newTenant("webinar");
    const hubspot = await connect(tenant.key, "hubspot", { access_token: "pat-na1-test-0123456789", base_url: tenant.base_url });
    const data = await useTemplate(tenant.key, "webinar-attendance-sync", { deploy: true, connections: { hubspot } });
    return { ...tenant, agent: data.agent };
  }

  it("creates an attendee HubSpot does not know, and marks one it knows", async () => {
    const { key, scenario, agent } = await deployed();
    const first = await settled(key, await deliver(agent, { email: "ada@example.com", webinar_name: "Attribution 101" }));
    expect(first.status).toBe("succeeded");
    const second = await settled(key, await deliver(agent, { email: "ada@example.com", webinar_name: "Lifecycle emails" }));
    expect(second.status).toBe("succeeded");
    expect(second.steps.find((s: any) => s.step_id === "mark").result).toMatchObject({ id: "151", properties: { last_webinar: "Lifecycle emails" } });

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual([
      "POST /crm/v3/objects/contacts/search",
      "POST /crm/v3/objects/contacts",
      "POST /crm/v3/objects/contacts/search",
      "PATCH /crm/v3/objects/contacts/151",
    ]);
    expect(sent[0]!.body.filterGroups).toEqual([{ filters: [{ propertyName: "email", operator: "EQ", value: "ada@example.com" }] }]);
    expect(sent[1]!.body).toEqual({ properties: { last_webinar: "Attribution 101", email: "ada@example.com" } });
    expect(sent[3]!.body).toEqual({ properties: { last_webinar: "Lifecycle emails" } });
    expectNoPlaceholders(sent);
  });

  it("fails at the search with HubSpot's reason when the app lacks the contacts scope, creating nothing", async () => {
    const { key, scenario, agent } = await deployed();
    await script(scenario, [
      {
        status: 403,
        body: {
          status: "error",
          message: "This app hasn't been granted all required scopes to make this call.",
          correlationId: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
          category: "MISSING_SCOPES",
        },
      },
    ]);
    const run = await settled(key, await deliver(agent, { email: "ada@example.com", webinar_name: "Attribution 101" }));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "find" });
    expect(run.error_message).toContain("This app hasn't been granted all required scopes");
    expect(calls(await sentTo(scenario))).toEqual(["POST /crm/v3/objects/contacts/search"]);
  });
});
