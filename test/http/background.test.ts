import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { call, newApp, newUser } from "../helpers/api";
import { obtainCode } from "../helpers/authorize";

describe("cron housekeeping", () => {
  it("deletes expired authorization codes and refresh tokens, and keeps live ones", async () => {
    const user = await newUser();
    const app = await newApp(await newUser());
    await obtainCode(user, { client_id: app.client_id, redirect_uri: "https://app.example/callback" });
    await obtainCode(user, { client_id: app.client_id, redirect_uri: "https://app.example/callback" });
    // Age one code past the retention window and expire the user's refresh token.
    await env.DB.prepare("UPDATE authorization_codes SET expires_at = ? WHERE rowid = (SELECT MIN(rowid) FROM authorization_codes WHERE client_id = ?)")
      .bind(Date.now() - 2 * 24 * 3600 * 1000, app.client_id)
      .run();
    await env.DB.prepare("UPDATE refresh_tokens SET expires_at = ? WHERE grant_id IN (SELECT id FROM grants WHERE user_id = ?)")
      .bind(Date.now() - 1, user.id)
      .run();

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);

    const codes = await env.DB.prepare("SELECT COUNT(*) AS n FROM authorization_codes WHERE client_id = ?").bind(app.client_id).first<{ n: number }>();
    expect(codes!.n).toBe(1);
    const tokens = await env.DB.prepare("SELECT COUNT(*) AS n FROM refresh_tokens WHERE grant_id IN (SELECT id FROM grants WHERE user_id = ?)")
      .bind(user.id)
      .first<{ n: number }>();
    expect(tokens!.n).toBe(0);
    // The user's session access token is unaffected (its grant is live).
    expect((await call("/v1/me", { token: user.accessToken })).status).toBe(200);
  });
});

describe("workflow-runs queue", () => {
  it("acks a message of a kind no handler serves instead of retrying it forever", async () => {
    const batch = createMessageBatch("workflow-runs", [{ id: "m1", timestamp: new Date(), attempts: 1, body: { kind: "nobody-handles-this" } }]);
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<any>, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["m1"]);
    expect(result.retryMessages).toEqual([]);
  });
});
