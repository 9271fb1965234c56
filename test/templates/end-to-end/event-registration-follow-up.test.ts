// event-registration-follow-up, deployed and fed signed registrations: the confirmation and the
// Airtable record go out at once, and the reminder reminder_hours_before the event's start (48
// here, not the default 24); an event closer than that gets no reminder, a date that cannot be
// read fails the run before anything is sent, and Airtable refusing a field fails the run with
// Airtable's message.
import { describe, expect, it } from "vitest";
import { call, json } from "../../helpers/api";
import { settled } from "../../helpers/runs";
import { deliver } from "./hub-delivery";
import { calls, connect, expectNoPlaceholders, newTenant, script, sentTo, stepReaches, timePasses, useTemplate } from "./harness";

const BASE = "appEVENTS0000000A";
const HOUR = 3_600_000;

async function deployed() {
  const tenant = await newTenant("eventreg");
  const resend = await connect(tenant.key, "resend", { api_key: "re_test_0123456789abcdef", base_url: tenant.base_url });
  const airtable = await connect(tenant.key, "airtable", { access_token: "patTEST.0123456789abcdef", default_base_id: BASE, base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "event-registration-follow-up", {
    deploy: true,
    connections: { resend, airtable },
    variables: { sender: "Acme Events <events@acme.example>", attendees_table: "Webinar attendees", reminder_hours_before: 48 },
  });
  return { ...tenant, agent: data.agent };
}

const registration = (event_date: string) => ({ email: "ada@example.com", event_name: "Growth Summit", event_date });

describe("event-registration-follow-up", () => {
  it("confirms, records the attendee, and reminds 48 hours before the event", async () => {
    const { key, scenario, agent } = await deployed();
    const starts = new Date(Date.now() + 10 * 24 * HOUR).toISOString();
    const id = await deliver(agent, registration(starts));
    await stepReaches(id, "wait", "waiting");
    const wait = (await json(await call(`/v1/executions/${id}`, { token: key }))).steps.find((s: any) => s.step_id === "wait");
    expect(Math.abs(Date.parse(wait.resume_at) - (Date.parse(starts) - 48 * HOUR))).toBeLessThan(60_000);

    const before = await sentTo(scenario);
    expect(calls(before)).toEqual(["POST /emails", `POST /${BASE}/Webinar%20attendees`]);
    expect(before[0]!.body).toEqual({
      from: "Acme Events <events@acme.example>",
      to: "ada@example.com",
      subject: "You're registered for Growth Summit",
      text: `See you on ${starts}.`,
    });
    expect(before[1]!.body).toEqual({ fields: { Email: "ada@example.com", Event: "Growth Summit" }, typecast: false });

    await timePasses(id, "wait");
    const run = await settled(key, id);
    expect(run.status).toBe("succeeded");
    const sent = await sentTo(scenario);
    expect(calls(sent)).toEqual(["POST /emails", `POST /${BASE}/Webinar%20attendees`, "POST /emails"]);
    expect(sent[2]!.body).toEqual({
      from: "Acme Events <events@acme.example>",
      to: "ada@example.com",
      subject: "Coming up: Growth Summit",
      text: `A reminder that Growth Summit starts on ${starts}.`,
    });
    expectNoPlaceholders(sent);
  });

  it("sends no reminder for an event that starts sooner than the reminder would", async () => {
    const { key, scenario, agent } = await deployed();
    const run = await settled(key, await deliver(agent, registration(new Date(Date.now() + 30 * HOUR).toISOString())));
    expect(run.status).toBe("succeeded");
    expect(run.steps.find((s: any) => s.step_id === "wait")).toBeUndefined();
    expect(calls(await sentTo(scenario))).toEqual(["POST /emails", `POST /${BASE}/Webinar%20attendees`]);
  });

  it("fails before sending anything when event_date is not a date", async () => {
    const { key, scenario, agent } = await deployed();
    const run = await settled(key, await deliver(agent, registration("next Tuesday")));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "reminder_at" });
    expect(run.error_message).toContain("event_date is not a date: next Tuesday");
    expect(await sentTo(scenario)).toEqual([]);
  });

  it("fails with Airtable's message when the table has no such field", async () => {
    const { key, scenario, agent } = await deployed();
    await script(scenario, [
      { body: { id: "49a3999c-0ce1-4ea6-ab68-afcd6dc2e794" } },
      { status: 422, body: { error: { type: "UNKNOWN_FIELD_NAME", message: 'Unknown field name: "Event"' } } },
    ]);
    const run = await settled(key, await deliver(agent, registration(new Date(Date.now() + 5 * 24 * HOUR).toISOString())));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "record" });
    expect(run.error_message).toContain('UNKNOWN_FIELD_NAME: Unknown field name: "Event"');
    expect(calls(await sentTo(scenario))).toEqual(["POST /emails", `POST /${BASE}/Webinar%20attendees`]);
  });
});
