// personal-outreach-for-each-lead, deployed (a manual trigger) and run through its agent with a
// list of leads: each lead's prompt names them and the offer set, and each gets the opener the
// model wrote for them; an address Resend refuses fails the run with Resend's message.
import { describe, expect, it } from "vitest";
import { calls, completion, connect, expectNoPlaceholders, expectSucceeded, newTenant, runAgent, script, sentTo, useTemplate } from "./harness";

async function deployed(variables: Record<string, unknown>) {
  const tenant = await newTenant("outreach");
  const resend = await connect(tenant.key, "resend", { api_key: "re_test_outreach_0123456789", base_url: tenant.base_url });
  await connect(tenant.key, "openai", { api_key: "sk-test-outreach-0123456789", base_url: tenant.base_url, model: "fake-gpt" });
  const data = await useTemplate(tenant.key, "personal-outreach-for-each-lead", { deploy: true, connections: { resend }, variables });
  return { ...tenant, agentId: data.agent.agent_id as string };
}

const leads = [
  { name: "Ada", title: "CMO", company: "Analytical Engines", email: "ada@engines.example" },
  { name: "Grace", title: "VP Growth", company: "Compilers Inc", email: "grace@compilers.example" },
  { name: "Linus", title: "Head of Marketing", company: "Kernels Ltd", email: "linus@kernels.example" },
];

describe("personal-outreach-for-each-lead", () => {
  it("writes each lead an opener offering what the variable says, and mails it to them", async () => {
    const { key, scenario, agentId } = await deployed({ offer: "two months free", sender: "Sam <sam@acme.example>" });
    const openers = ["Opener one.", "Opener two.", "Opener three."];
    await script(scenario, openers.map(completion));
    expectSucceeded(await runAgent(key, agentId, { leads }));

    const sent = await sentTo(scenario);
    expect(calls(sent).sort()).toEqual([...Array(3).fill("POST /chat/completions"), ...Array(3).fill("POST /emails")].sort());
    // The leads run three at a time: the model's answers went out in the order its requests came in.
    const prompts = sent.filter((r) => r.path === "/chat/completions").map((r) => r.body.messages.at(-1).content as string);
    const emails = sent.filter((r) => r.path === "/emails").map((r) => r.body);
    for (const lead of leads) {
      const asked = prompts.findIndex((p) => p.includes(`for ${lead.name},`));
      expect(prompts[asked]).toBe(`One friendly opening sentence for ${lead.name}, ${lead.title} at ${lead.company}, offering two months free.`);
      expect(emails.find((e) => e.to === lead.email)).toMatchObject({
        from: "Sam <sam@acme.example>",
        subject: `${lead.company} + Acme`,
        html: `<p>${openers[asked]}</p>`,
      });
    }
    expectNoPlaceholders(sent);
  });

  it("an address Resend refuses fails the run with Resend's 422", async () => {
    const { key, scenario, agentId } = await deployed({});
    await script(scenario, [
      completion("Hello there."),
      {
        status: 422,
        body: { statusCode: 422, message: "Invalid `to` field. The email address needs to follow the `email@example.com` format.", name: "validation_error" },
      },
    ]);
    const run = await runAgent(key, agentId, { leads: [leads[0]] });
    expect(run.status).toBe("failed");
    expect(run.error_message).toContain("Invalid `to` field");
    expect(calls(await sentTo(scenario))).toEqual(["POST /chat/completions", "POST /emails"]);
  });
});
