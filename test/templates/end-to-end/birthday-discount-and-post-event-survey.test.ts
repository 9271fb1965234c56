// Two Resend templates, deployed and fed through their signed webhooks: birthday-discount mails
// the percent named with a fresh code; post-event-survey mails the survey link after its day's
// wait, once per person and event, and a send Resend refused is not remembered as sent.
import { describe, expect, it } from "vitest";
import { settled } from "../../helpers/runs";
import { calls, connect, expectNoPlaceholders, expectSucceeded, newTenant, script, sentTo, stepReaches, timePasses, useTemplate } from "./harness";
import { deliver } from "./hub-delivery";

async function deployed(templateId: string, variables: Record<string, unknown>) {
  const tenant = await newTenant("resendtpl");
  const resend = await connect(tenant.key, "resend", { api_key: "re_test_0123456789abcdef", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, templateId, { deploy: true, connections: { resend }, variables });
  return { ...tenant, agent: data.agent };
}

/** Resend's answer to an address it cannot send to (resend.com/docs/api-reference/errors). */
const invalidTo = {
  status: 422,
  body: {
    statusCode: 422,
    message: "Invalid `to` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.",
    name: "validation_error",
  },
};

describe("birthday-discount", () => {
  it("emails the percent named with a code of its own, greeting by first name or 'friend'", async () => {
    const { key, scenario, agent } = await deployed("birthday-discount", { discount_percent: 25, sender: "Shop <gifts@shop.example>" });
    expectSucceeded(await settled(key, await deliver(agent, { email: "ada@example.com", first_name: "Ada" })));
    expectSucceeded(await settled(key, await deliver(agent, { email: "bob@example.com" })));

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /emails", "POST /emails"]);
    const [ada, bob] = sent.map((r) => r.body);
    expect(ada).toMatchObject({ from: "Shop <gifts@shop.example>", to: "ada@example.com", subject: "Happy birthday, Ada!" });
    expect(bob).toMatchObject({ to: "bob@example.com", subject: "Happy birthday, friend!" });
    const code = /^<p>25% off with code ([0-9a-f-]{36})<\/p>$/;
    expect(ada.html).toMatch(code);
    expect(bob.html).toMatch(code);
    expect(ada.html).not.toBe(bob.html);
    expectNoPlaceholders(sent);
  });

  it("an address Resend refuses fails the run with Resend's 422, after one request", async () => {
    const { key, scenario, agent } = await deployed("birthday-discount", {});
    await script(scenario, [invalidTo]);
    const run = await settled(key, await deliver(agent, { email: "ada@example.com" }));
    expect(run.status).toBe("failed");
    expect(run.error_message).toContain("Invalid `to` field");
    expect(calls(await sentTo(scenario))).toEqual(["POST /emails"]);
  });
});

describe("post-event-survey", () => {
  const attendee = { event_id: "summit-2026", event_name: "Growth Summit", email: "ada@example.com" };

  /** Delivers the attendee, lets the day pass, and waits for the run's end. */
  async function surveyed(key: string, agent: any, body: Record<string, unknown>) {
    const id = await deliver(agent, body);
    await stepReaches(id, "wait", "waiting");
    await timePasses(id, "wait");
    return settled(key, id);
  }

  it("mails the survey named the day after, once per attendee and event", async () => {
    const { key, scenario, agent } = await deployed("post-event-survey", { survey_url: "https://forms.example/summit", sender: "Events <hi@acme.com>" });
    const first = await deliver(agent, attendee);
    await stepReaches(first, "wait", "waiting");
    // Nothing goes out before the day has passed.
    expect(await sentTo(scenario)).toEqual([]);
    await timePasses(first, "wait");
    expectSucceeded(await settled(key, first));
    // The same attendee again (a provider's retry, a second check-in): no second email.
    expectSucceeded(await surveyed(key, agent, attendee));

    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /emails"]);
    expect(sent[0].body).toMatchObject({
      from: "Events <hi@acme.com>",
      to: "ada@example.com",
      subject: "How was Growth Summit?",
      html: '<p><a href="https://forms.example/summit">Two minutes of feedback</a></p>',
    });
    expectNoPlaceholders(sent);
  });

  it("a send Resend refused fails the run and is not remembered: the next delivery sends", async () => {
    const { key, scenario, agent } = await deployed("post-event-survey", {});
    await script(scenario, [invalidTo]);
    const failed = await surveyed(key, agent, attendee);
    expect(failed.status).toBe("failed");
    expect(failed.error_message).toContain("Invalid `to` field");
    expectSucceeded(await surveyed(key, agent, attendee));
    expect(calls(await sentTo(scenario))).toEqual(["POST /emails", "POST /emails"]);
  });
});
