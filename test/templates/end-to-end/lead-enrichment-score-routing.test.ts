// lead-enrichment-score-routing, deployed and fed signed leads: the enrichment API's employee count
// and the lead's base score make the score; with hot_threshold 80 (not the default 70) a lead
// scoring 100 is announced in the chosen Slack channel and one scoring 70 goes to the nurture
// audience, tagged; Mailchimp refusing the address fails the run with its reason.
import { describe, expect, it } from "vitest";
import { settled } from "../../helpers/runs";
import { deliver } from "./hub-delivery";
import { calls, connect, expectNoPlaceholders, newTenant, script, sentTo, useTemplate } from "./harness";

const LIST = "a1b2c3d4e5";

async function md5(text: string) {
  const digest = await crypto.subtle.digest("MD5", new TextEncoder().encode(text.toLowerCase()));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function deployed() {
  const tenant = await newTenant("enrich");
  const slack = await connect(tenant.key, "slack", { bot_token: "xoxb-test-0123456789", base_url: tenant.base_url });
  const mailchimp = await connect(tenant.key, "mailchimp", { api_key: "0123456789abcdef0123456789abcdef-us21", base_url: tenant.base_url });
  const data = await useTemplate(tenant.key, "lead-enrichment-score-routing", {
    deploy: true,
    connections: { slack, mailchimp },
    variables: { enrichment_url: `${tenant.base_url}/companies`, hot_threshold: 80, hot_channel: "#hot-leads", nurture_list: LIST },
  });
  return { ...tenant, agent: data.agent };
}

/** The enrichment API's answer for a company of `employees`. */
const company = (domain: string, employees: number) => ({ body: { domain, name: "Analytical Engines", employees } });

describe("lead-enrichment-score-routing", () => {
  it("routes a lead over the threshold to Slack and one under it to the nurture audience", async () => {
    const { key, scenario, agent } = await deployed();
    await script(scenario, [company("engines.example", 900)]);
    const hot = await settled(key, await deliver(agent, { email: "ada@engines.example", domain: "engines.example", base_score: 20 }));
    expect(hot.status).toBe("succeeded");
    await script(scenario, [company("mill.example", 500)]);
    const warm = await settled(key, await deliver(agent, { email: "grace@mill.example", domain: "mill.example", base_score: 20 }));
    expect(warm.status).toBe("succeeded");

    const sent = await sentTo(scenario);
    const hash = await md5("grace@mill.example");
    expect(calls(sent)).toEqual([
      "GET /companies",
      "POST /chat.postMessage",
      "GET /companies",
      `PUT /lists/${LIST}/members/${hash}`,
      `POST /lists/${LIST}/members/${hash}/tags`,
    ]);
    expect(sent[0]!.query).toEqual({ domain: "engines.example" });
    expect(sent[1]!.body).toEqual({ channel: "#hot-leads", text: "Hot lead ada@engines.example scored 100" });
    expect(sent[2]!.query).toEqual({ domain: "mill.example" });
    // 70 would be hot under the default threshold; under 80 it is nurtured.
    expect(sent[3]!.body).toEqual({ email_address: "grace@mill.example", status_if_new: "subscribed" });
    expect(sent[4]!.body).toEqual({ tags: [{ name: "nurture", status: "active" }] });
    expectNoPlaceholders(sent);
  });

  it("fails with Mailchimp's reason when it refuses the address", async () => {
    const { key, scenario, agent } = await deployed();
    await script(scenario, [
      company("mill.example", 100),
      {
        status: 400,
        body: {
          type: "https://mailchimp.com/developer/marketing/docs/errors/",
          title: "Invalid Resource",
          status: 400,
          detail: "grace@mill.example looks fake or invalid, please enter a real email address.",
          instance: "2b4c6d8e-0a1b-4c3d-8e9f-0a1b2c3d4e5f",
        },
      },
    ]);
    const run = await settled(key, await deliver(agent, { email: "grace@mill.example", domain: "mill.example", base_score: 5 }));
    expect(run).toMatchObject({ status: "failed", failed_step_id: "nurture" });
    expect(run.error_message).toContain("Invalid Resource: grace@mill.example looks fake or invalid");
    expect(calls(await sentTo(scenario))).toEqual(["GET /companies", `PUT /lists/${LIST}/members/${await md5("grace@mill.example")}`]);
  });
});
