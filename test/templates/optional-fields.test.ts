import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { execute, settled } from "../helpers/runs";

// Strict placeholders in the templates people start from: a field a form may leave out has a
// default, so no customer ever reads "{{input.first_name}}"; a field the story needs fails the run
// with its name.

describe("templates with optional fields", () => {
  it("welcome-email-with-follow-up greets a subscriber without a first name as 'there', and refuses one without an email", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = `template-welcome-${crypto.randomUUID()}`;
    const resend = await json(
      await call("/v1/connections", {
        token: key,
        json: { platform: "resend", name: "Mail", config: { api_key: "re_test_0123456789abcdef", base_url: `${env.TEST_FAKE_URL}/s/${scenario}` } },
      }),
    );
    const used = await call("/v1/templates/welcome-email-with-follow-up/use", { token: key, json: { connections: { resend: resend.connection_id } } });
    expect(used.status).toBe(201);
    const { data: workflow } = await json(used);

    const id = await execute(key, workflow.id, { email: "new@example.com" });
    const deadline = Date.now() + 15_000;
    let sent: any[] = [];
    while (sent.length === 0 && Date.now() < deadline) {
      await scheduler.wait(100);
      sent = (await (await fetch(`${env.TEST_FAKE_URL}/__requests/${scenario}`)).json<any[]>()).filter((r) => r.path === "/emails");
    }
    expect(sent[0].body).toMatchObject({ to: "new@example.com", subject: "Welcome aboard, there!", html: "<p>Thanks for subscribing, friend.</p>" });
    expect(JSON.stringify(sent)).not.toContain("{{");
    await call(`/v1/executions/${id}/cancel`, { method: "POST", token: key });

    const noEmail = await settled(key, await execute(key, workflow.id, { first_name: "Ada" }));
    expect(noEmail.status).toBe("failed");
    expect(noEmail.error_message).toContain("{{input.email}} has no value");
  });
});
