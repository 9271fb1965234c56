// A refresh whose answer cannot be written to D1: the provider has already retired the refresh
// token that was sent, so the answer is kept in the connection's token object until D1 has it.
// Without that, the next call found the refresh "interrupted" and marked the connection expired,
// and the rotated refresh token was gone.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ConnectionTokens } from "../../src/connections/oauth/connection-tokens";
import { apiCall, connectOAuth2, expireInHub, getConnection, newClientId, providerSettings, providerStats, signedInPerson } from "./oauth-helpers";

describe("a refresh whose answer D1 did not take", () => {
  it("is written by the next call, with no refresh token sent twice and the connection still active", async () => {
    const person = await signedInPerson();
    const clientId = newClientId();
    await providerSettings(clientId, { access_ttl: 3600 });
    const id = await connectOAuth2(person, clientId);
    const { uid } = (await env.DB.prepare("SELECT uid FROM connections WHERE id = ?").bind(id).first<{ uid: string }>())!;
    const tokens = env.CONNECTION_TOKENS.get(env.CONNECTION_TOKENS.idFromName(uid));

    // D1 refuses the write once, as a transient failure would.
    await runInDurableObject(tokens as any, async (instance: ConnectionTokens) => {
      (instance as any).store = async () => {
        throw new Error("D1_ERROR: database is unavailable");
      };
    });
    await expireInHub(id);
    const failed = await apiCall(person.key);
    expect(failed).toMatchObject({ success: false, retryable: true });
    expect(await providerStats(clientId)).toMatchObject({ refreshes: 1, reused_refresh_tokens: 0 });

    // D1 is back: the next call stores the kept answer and calls with its access token.
    await runInDurableObject(tokens as any, async (instance: ConnectionTokens) => {
      delete (instance as any).store;
    });
    const worked = await apiCall(person.key);
    expect(worked, JSON.stringify(worked)).toMatchObject({ success: true });
    expect(await providerStats(clientId)).toMatchObject({ refreshes: 1, reused_refresh_tokens: 0, api_refused: 0, api_calls: 1 });
    expect(await getConnection(person.key, id)).toMatchObject({ status: "active" });

    // And the rotated refresh token is the one used next.
    await expireInHub(id);
    expect((await apiCall(person.key)).success).toBe(true);
    expect(await providerStats(clientId)).toMatchObject({ refreshes: 2, reused_refresh_tokens: 0 });
  });
});
