import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";

// POST /v1/templates/{id}/use with {name, variables, connections, deploy} (DESIGN §5 "Templates").

const CONFIGS = {
  slack: { bot_token: "xoxb-test-0123456789" },
  hubspot: { access_token: "pat-na1-test-0123456789" },
  mailchimp: { api_key: "0123456789abcdef0123456789abcdef-us21" },
};

async function connection(key: string, platform: keyof typeof CONFIGS) {
  const config = CONFIGS[platform];
  const response = await call("/v1/connections", { token: key, json: { platform, name: `${platform} for tests`, config } });
  expect(response.status).toBe(201);
  return (await json(response)).connection_id as number;
}

const use = (key: string, template: string, body?: Record<string, unknown>) =>
  call(`/v1/templates/${template}/use`, { token: key, ...(body ? { json: body } : { method: "POST" }) });

const toolSteps = (steps: any[]) => steps.filter((step) => step.type === "tool");

describe("using a template", () => {
  it("deploys a scheduled template in one call: the agent is scheduled and its secret shown once", async () => {
    const { key } = await newApiKey(await newUser());
    // Without a connection name, the person's own connection of each platform is used.
    await connection(key, "mailchimp");
    await connection(key, "slack");
    const response = await use(key, "weekly-campaign-report", { deploy: true, name: "Monday numbers" });
    expect(response.status).toBe(201);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const { data } = await json(response);
    expect(data.workflow_name ?? data.name).toBe("Monday numbers");
    expect(data.agent).toMatchObject({ workflow_id: data.id, schedule: { type: "cron", cron_expression: "0 9 * * 1" } });
    expect(data.agent.monitoring.next_run_at).toBeTruthy();
    expect(data.agent.webhook_secret).toEqual(expect.any(String));
    const platformSteps = toolSteps(data.steps).filter((step) => /^(mailchimp|slack)_/.test(step.tool));
    expect(platformSteps.length).toBeGreaterThan(0);
    expect(platformSteps.every((step) => Number.isInteger(step.arguments.connection_id))).toBe(true);
    const agent = await json(await call(`/v1/agents/${data.agent.agent_id}`, { token: key }));
    expect(agent.agent_id).toBe(data.agent.agent_id);
    expect(agent.webhook_secret).toBeUndefined();
  });

  it("refuses to deploy a template whose platforms the person has not connected, naming each, and creates nothing", async () => {
    const { key } = await newApiKey(await newUser());
    const body = await expectProblem(await use(key, "lead-form-to-crm-and-slack", { deploy: true }), 422, "validation_failed");
    expect(body.errors?.map((e) => e.field).sort()).toEqual(["connections.hubspot", "connections.slack"]);
    expect((await json(await call("/v1/workflows", { token: key }))).data).toHaveLength(0);
    expect(await json(await call("/v1/agents", { token: key }))).toHaveLength(0);
  });

  it("binds each platform's steps to the named connection and takes variables", async () => {
    const { key } = await newApiKey(await newUser());
    const slack = await connection(key, "slack");
    const hubspot = await connection(key, "hubspot");
    const response = await use(key, "lead-form-to-crm-and-slack", { connections: { slack, hubspot }, variables: { sales_channel: "#leads" } });
    expect(response.status).toBe(201);
    const { data } = await json(response);
    const [contact, alert] = toolSteps(data.steps);
    expect(contact.arguments.connection_id).toBe(hubspot);
    expect(alert.arguments.connection_id).toBe(slack);
    expect(data.variables.sales_channel).toBe("#leads");
  });

  it("refuses another person's connection, a connection of the wrong platform and a platform the template does not use", async () => {
    const { key } = await newApiKey(await newUser());
    const { key: stranger } = await newApiKey(await newUser());
    const theirs = await connection(stranger, "slack");
    const hubspot = await connection(key, "hubspot");
    const body = await expectProblem(
      await use(key, "lead-form-to-crm-and-slack", { connections: { slack: theirs, hubspot, resend: hubspot } }),
      422,
      "validation_failed",
    );
    const byField = Object.fromEntries((body.errors ?? []).map((e) => [e.field, e.message]));
    expect(byField["connections.slack"]).toContain("No connection of yours");
    expect(byField["connections.resend"]).toContain("uses no resend step");
    const wrong = await expectProblem(await use(key, "lead-form-to-crm-and-slack", { connections: { slack: hubspot, hubspot } }), 422, "validation_failed");
    expect(wrong.errors?.[0]?.message).toContain("is a hubspot connection, not slack");
  });

  it("without a body copies the template as before, binding nothing", async () => {
    const { key } = await newApiKey(await newUser());
    const response = await use(key, "lead-form-to-crm-and-slack");
    expect(response.status).toBe(201);
    const { data } = await json(response);
    expect(toolSteps(data.steps).every((step) => step.arguments.connection_id === undefined)).toBe(true);
  });

  it("takes an empty body labelled JSON as a plain copy, and names a bad field", async () => {
    const { key } = await newApiKey(await newUser());
    const empty = await call("/v1/templates/lead-form-to-crm-and-slack/use", { token: key, method: "POST", headers: { "Content-Type": "application/json" } });
    expect(empty.status).toBe(201);
    const bad = await expectProblem(await use(key, "lead-form-to-crm-and-slack", { deploy: "yes" }), 422, "validation_failed");
    expect(bad.errors?.[0]?.field).toBe("deploy");
  });

  it("refuses a required variable (default null) left out or empty, naming it, and creates nothing", async () => {
    const { key } = await newApiKey(await newUser());
    const listed = (await json(await call("/v1/templates/scheduled-social-posts-discord", { token: key }))).data;
    expect(listed.variables.channel_id.default).toBeNull();
    for (const body of [undefined, { variables: { message: "Hello" } }, { variables: { channel_id: "" } }]) {
      const refused = await expectProblem(await use(key, "scheduled-social-posts-discord", body), 422, "validation_failed");
      expect(refused.detail).toContain("channel_id");
      expect(refused.errors).toEqual([{ location: "body", field: "variables.channel_id", message: expect.stringContaining("Discord channel id") }]);
    }
    expect((await json(await call("/v1/workflows", { token: key }))).data).toEqual([]);
    const response = await use(key, "scheduled-social-posts-discord", { variables: { channel_id: "1100000000000000042" } });
    expect(response.status).toBe(201);
    const { data } = await json(response);
    expect(data.variables).toMatchObject({ channel_id: "1100000000000000042", message: "New post on our blog this week!" });
  });

  it("deploying needs workflow:execute", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user, { scopes: ["data:read", "data:write"] });
    await expectProblem(await use(key, "weekly-campaign-report", { deploy: true }), 403, "insufficient_scope");
  });
});
