// A workflow step's idempotency key goes only to platforms that document one: Resend's
// Idempotency-Key header, Discord's enforced message nonce, and an HTTP API whose connection names
// its header. Slack, HubSpot, Notion, Airtable, Mailchimp and Telegram document none and get none.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, settled } from "../helpers/runs";

const FAKE = () => env.TEST_FAKE_URL;

async function connect(key: string, platform: string, config: Record<string, unknown>, name = platform): Promise<number> {
  const response = await call("/v1/connections", { token: key, json: { platform, name, config } });
  expect(response.status).toBe(201);
  return (await json(response)).connection_id;
}

const step = (id: string, tool: string, args: Record<string, unknown>) => ({ id, type: "tool", tool, arguments: args });

describe("idempotency keys only where the platform documents them", () => {
  it("sends the step's key to Resend, Discord (as a nonce) and an HTTP API that asks for it; to no one else", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = `idem${crypto.randomUUID().replace(/-/g, "")}`;
    const base_url = `${FAKE()}/s/${scenario}`;
    await connect(key, "resend", { api_key: "re_test_0123456789", default_from: "Acme <hello@acme.com>", base_url });
    await connect(key, "slack", { bot_token: "xoxb-test-0123456789", base_url });
    await connect(key, "hubspot", { access_token: "pat-na1-test-0123456789", base_url });
    await connect(key, "discord", { bot_token: "MTEw.test.0123456789", base_url });
    await connect(key, "notion", { api_key: "ntn_test_0123456789", base_url });
    await connect(key, "airtable", { access_token: "pat.test.0123456789", base_url });
    await connect(key, "mailchimp", { api_key: "0123456789abcdef0123456789abcdef-us21", base_url });
    await connect(key, "telegram", { bot_token: "7012345678:AAtest", base_url });
    const keyed = await connect(key, "http", { base_url, idempotency_header: "X-Request-Key" }, "Own API");
    const plain = await connect(key, "http", { base_url }, "Other API");

    const workflow = await newWorkflow(key, {
      steps: [
        step("email", "resend_send_email", { to: "ada@example.com", subject: "Hi", text: "Hello" }),
        step("alert", "slack_send_message", { channel: "#general", text: "hi" }),
        step("contact", "hubspot_create_contact", { email: "ada@example.com" }),
        step("post", "discord_send_message", { channel_id: "123456789012345678", content: "hi" }),
        step("page", "notion_create_page", { database_id: "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9", title: "Idea" }),
        step("record", "airtable_create_record", { base_id: "appABCDEFGHIJKLMN", table: "Leads", fields: { Name: "Ada" } }),
        step("member", "mailchimp_upsert_member", { list_id: "a1b2c3d4e5", email: "ada@example.com" }),
        step("chat", "telegram_send_message", { chat_id: "-42", text: "hi" }),
        step("own", "http_call", { connection_id: keyed, method: "POST", path: "/hook", body: {} }),
        step("other", "http_call", { connection_id: plain, method: "POST", path: "/hook", body: {} }),
      ],
    });
    const id = await execute(key, workflow.id);
    expect((await settled(key, id)).status).toBe("succeeded");

    const requests: any[] = await (await fetch(`${FAKE()}/__requests/${scenario}`)).json();
    const byPath = (path: string) => requests.filter((r) => r.path === path);
    const [email] = byPath("/emails");
    expect(email.headers["idempotency-key"]).toBe(`${id}:email:0`);

    const [post] = byPath("/channels/123456789012345678/messages");
    expect(post.headers["idempotency-key"]).toBeUndefined();
    expect(post.body).toEqual({ content: "hi", nonce: expect.stringMatching(/^[A-Za-z0-9_-]{25}$/), enforce_nonce: true });

    const [own, other] = byPath("/hook");
    expect(own.headers["x-request-key"]).toBe(`${id}:own:0`);
    expect(own.headers["idempotency-key"]).toBeUndefined();
    expect(other.headers["idempotency-key"]).toBeUndefined();
    expect(other.headers["x-request-key"]).toBeUndefined();

    const undocumented = requests.filter((r) => !["/emails", "/hook"].includes(r.path));
    expect(undocumented).toHaveLength(7);
    expect(undocumented.map((r) => r.path)).toEqual(
      expect.arrayContaining([
        "/chat.postMessage",
        "/crm/v3/objects/contacts",
        "/channels/123456789012345678/messages",
        "/pages",
        "/appABCDEFGHIJKLMN/Leads",
        expect.stringMatching(/^\/lists\/a1b2c3d4e5\/members\//),
        expect.stringMatching(/\/sendMessage$/),
      ]),
    );
    for (const request of undocumented) expect(request.headers["idempotency-key"], request.path).toBeUndefined();
  });

  it("the same step of the same run sends the same key and nonce again, so a repeat does not act twice", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = `idem${crypto.randomUUID().replace(/-/g, "")}`;
    const base_url = `${FAKE()}/s/${scenario}`;
    await connect(key, "discord", { bot_token: "MTEw.test.0123456789", base_url });
    // Discord fails the first try with a 502: the retry carries the same nonce.
    expect(
      (await fetch(`${FAKE()}/__script/${scenario}`, { method: "POST", body: JSON.stringify([{ status: 502, body: { message: "Bad Gateway", code: 0 } }]) }))
        .status,
    ).toBe(204);
    const workflow = await newWorkflow(key, {
      steps: [{ ...step("post", "discord_send_message", { channel_id: "123456789012345678", content: "hi" }), retry: { max_attempts: 2, delay_seconds: 0 } }],
    });
    const run = await settled(key, await execute(key, workflow.id), 30_000);
    expect(run.steps[0]).toMatchObject({ status: "succeeded", attempts: 2 });
    const requests: any[] = await (await fetch(`${FAKE()}/__requests/${scenario}`)).json();
    expect(requests).toHaveLength(2);
    expect(requests[1].body.nonce).toBe(requests[0].body.nonce);
  });
});
