import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";

const SLACK_TOKEN = "xoxb-1111-2222-abcdefghijklmnop";

async function slackConnection(token: string, extra: Record<string, unknown> = {}) {
  const response = await call("/v1/connections", {
    token,
    json: { platform: "slack", name: "Marketing Slack", config: { bot_token: SLACK_TOKEN, default_channel: "#general", ...extra } },
  });
  expect(response.status).toBe(201);
  return json(response);
}

describe("platform registry", () => {
  it("lists MCP, eight marketing platforms, webhook and http with config schemas that mark secrets", async () => {
    const { key } = await newApiKey(await newUser());
    const { data } = await json(await call("/v1/connections/platforms", { token: key }));
    const ids = data.map((p: any) => p.id);
    expect(ids).toEqual(
      expect.arrayContaining(["mcp", "slack", "discord", "telegram", "resend", "hubspot", "mailchimp", "airtable", "notion", "webhook", "http"]),
    );
    const slack = data.find((p: any) => p.id === "slack");
    expect(slack.secret_fields).toEqual(["bot_token", "signing_secret"]);
    expect(slack.config_schema.properties.bot_token).toMatchObject({ writeOnly: true, "x-secret": true });
    expect(slack.config_schema.required).toContain("bot_token");
    expect(slack.tools.map((t: any) => t.name)).toEqual(expect.arrayContaining(["slack_send_message", "slack_list_channels"]));
    for (const platform of data.filter((p: any) => !["mcp", "openai", "anthropic"].includes(p.id))) {
      expect(platform.tools.length, platform.id).toBeGreaterThanOrEqual(1);
      for (const tool of platform.tools) expect(tool.name.startsWith(`${platform.id}_`), tool.name).toBe(true);
    }
    expect(data.find((p: any) => p.id === "mcp")).toMatchObject({ tools_from_server: true, secret_fields: ["token", "headers"] });
  });
});

describe("connections", () => {
  it("validates the config against the platform schema with field errors", async () => {
    const { key } = await newApiKey(await newUser());
    const body = await expectProblem(
      await call("/v1/connections", { token: key, json: { platform: "slack", name: "x", config: { default_channel: 5 } } }),
      422,
      "validation_failed",
    );
    expect(body.errors?.map((e) => e.field)).toEqual(expect.arrayContaining(["config.bot_token", "config.default_channel"]));
    await expectProblem(await call("/v1/connections", { token: key, json: { platform: "myspace", name: "x", config: {} } }), 422, "validation_failed");
  });

  it("masks secrets in every response and keeps the stored secret when a PUT sends the mask back", async () => {
    const { key } = await newApiKey(await newUser());
    const created = await slackConnection(key);
    expect(created).toMatchObject({ platform: "slack", name: "Marketing Slack", status: "active", error_message: null });
    expect(created.config).toEqual({ bot_token: "••••mnop", default_channel: "#general" });

    const row = await env.DB.prepare("SELECT config FROM connections WHERE id = ?").bind(created.connection_id).first<{ config: string }>();
    expect(row!.config).not.toContain(SLACK_TOKEN);
    expect(row!.config).toContain('"$sealed":"v1.k1.');

    // Round-trip what was read, renaming it: the secret survives.
    const updated = await call(`/v1/connections/${created.connection_id}`, {
      method: "PUT",
      token: key,
      json: { name: "Renamed", status: "active", config: created.config },
    });
    expect(updated.status).toBe(200);
    expect(await json(updated)).toMatchObject({ name: "Renamed", config: { bot_token: "••••mnop" } });
    const after = await env.DB.prepare("SELECT config FROM connections WHERE id = ?").bind(created.connection_id).first<{ config: string }>();
    expect(after!.config).not.toBe(row!.config); // re-sealed with a fresh IV…
    // …and still the same secret: a new value would show new last characters.
    const replaced = await json(
      await call(`/v1/connections/${created.connection_id}`, {
        method: "PUT",
        token: key,
        json: { name: "Renamed", status: "active", config: { bot_token: "xoxb-9999-new-token-wxyz" } },
      }),
    );
    expect(replaced.config.bot_token).toBe("••••wxyz");

    const listed = await json(await call("/v1/connections", { token: key }));
    expect(JSON.stringify(listed)).not.toContain("xoxb-");
  });

  it("binds each ciphertext to its record: a tampered or transplanted secret fails closed", async () => {
    const { key } = await newApiKey(await newUser());
    const first = await slackConnection(key);
    const second = await slackConnection(key, { bot_token: "xoxb-other-workspace-token-0000" });
    // Copy the first connection's sealed token into the second row.
    const source = await env.DB.prepare("SELECT config FROM connections WHERE id = ?").bind(first.connection_id).first<{ config: string }>();
    await env.DB.prepare("UPDATE connections SET config = ? WHERE id = ?").bind(source!.config, second.connection_id).run();
    const response = await call("/v1/tools/execute", {
      token: key,
      json: { name: "slack_send_message", arguments: { text: "hi", connection_id: second.connection_id } },
    });
    const problem = await expectProblem(response, 409, "tool_unavailable");
    expect(problem.detail).toContain("cannot be decrypted");
    // Flipping one character of the ciphertext fails the same way.
    const tampered = source!.config.replace(/("\$sealed":"v1\.k1\.[^.]+\.)(.)/, (_m, head, ch) => head + (ch === "A" ? "B" : "A"));
    await env.DB.prepare("UPDATE connections SET config = ? WHERE id = ?").bind(tampered, first.connection_id).run();
    await expectProblem(
      await call("/v1/tools/execute", { token: key, json: { name: "slack_send_message", arguments: { text: "hi", connection_id: first.connection_id } } }),
      409,
      "tool_unavailable",
    );
    // The list still answers, showing only a mask.
    const listed = await json(await call("/v1/connections", { token: key }));
    expect(listed.data.find((c: any) => c.connection_id === first.connection_id).config.bot_token).toBe("••••");
    // Sending the mask back cannot keep an unreadable secret; entering it again repairs the connection.
    const masked = { name: "x", status: "active", config: { bot_token: "••••", default_channel: "#general" } };
    await expectProblem(await call(`/v1/connections/${first.connection_id}`, { method: "PUT", token: key, json: masked }), 422, "validation_failed");
    const repaired = await call(`/v1/connections/${first.connection_id}`, {
      method: "PUT",
      token: key,
      json: { ...masked, config: { bot_token: "xoxb-fresh-token-after-rotation-0042", default_channel: "#general" } },
    });
    expect(repaired.status).toBe(200);
    expect((await json(repaired)).config.bot_token).toBe("••••0042");
  });

  it("refuses to send a stored secret to a new base URL unless it is entered again", async () => {
    const { key } = await newApiKey(await newUser());
    const created = await slackConnection(key, { base_url: "https://slack.com/api" });
    const problem = await expectProblem(
      await call(`/v1/connections/${created.connection_id}`, {
        method: "PUT",
        token: key,
        json: { name: "x", status: "active", config: { ...created.config, base_url: "https://collector.example/api" } },
      }),
      422,
      "validation_failed",
    );
    expect(problem.detail).toContain("base_url");
    expect(problem.errors).toEqual([expect.objectContaining({ field: "config.bot_token" })]);
    // Unchanged base URL with the mask: fine.
    const same = await call(`/v1/connections/${created.connection_id}`, {
      method: "PUT",
      token: key,
      json: { name: "y", status: "active", config: created.config },
    });
    expect(same.status).toBe(200);
  });

  it("counts a field a platform builds its host from as a move too (Pipedrive's company_domain)", async () => {
    const { key } = await newApiKey(await newUser());
    const created = await json(
      await call("/v1/connections", {
        token: key,
        json: { platform: "pipedrive", name: "CRM", config: { company_domain: "acme", api_token: "pd-0123456789abcdef" } },
      }),
    );
    const moved = { name: "CRM", status: "active", config: { ...created.config, company_domain: "another-company" } };
    const problem = await expectProblem(
      await call(`/v1/connections/${created.connection_id}`, { method: "PUT", token: key, json: moved }),
      422,
      "validation_failed",
    );
    expect(problem.detail).toContain("company_domain");
    expect(problem.errors).toEqual([expect.objectContaining({ field: "config.api_token" })]);
  });

  it("keeps connections private: another user gets 404 on update and delete, and never sees them listed", async () => {
    const owner = await newApiKey(await newUser());
    const stranger = await newApiKey(await newUser());
    const created = await slackConnection(owner.key);
    const put = { method: "PUT", token: stranger.key, json: { name: "mine now", status: "active", config: { bot_token: "xoxb-x" } } };
    await expectProblem(await call(`/v1/connections/${created.connection_id}`, put), 404, "not_found");
    await expectProblem(await call(`/v1/connections/${created.connection_id}`, { method: "DELETE", token: stranger.key }), 404, "not_found");
    expect((await json(await call("/v1/connections", { token: stranger.key }))).data).toEqual([]);
    expect((await call(`/v1/connections/${created.connection_id}`, { method: "DELETE", token: owner.key })).status).toBe(204);
    expect((await json(await call("/v1/connections", { token: owner.key }))).data).toEqual([]);
  });

  it("needs connections:write to create, change or test a connection", async () => {
    const user = await newUser();
    const { key } = await newApiKey(user, { scopes: ["data:read", "data:write"] });
    await expectProblem(
      await call("/v1/connections", { token: key, json: { platform: "slack", name: "x", config: { bot_token: "xoxb-1" } } }),
      403,
      "insufficient_scope",
    );
    await expectProblem(
      await call("/v1/connections/test", { token: key, json: { platform: "slack", config: { bot_token: "xoxb-1" } } }),
      403,
      "insufficient_scope",
    );
    expect((await call("/v1/connections", { token: key })).status).toBe(200);
  });
});
