import { evictDurableObject, listDurableObjectIds } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { connectionGovernorName, governorFor } from "../../src/connections/governor";
import { platformClient } from "../../src/connections/platforms/client";
import { httpApi } from "../../src/connections/platforms/http-api";
import { PlatformError } from "../../src/connections/platforms/types";
import { HubError } from "../../src/core/errors";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { execute, newWorkflow, settled } from "../helpers/runs";

// The rate governor against test/fakes/rate-limited-api.mjs, a loopback API that limits each token
// to N requests per second and answers 429 with Retry-After beyond it. Assertions are counts and
// the order in which the fake saw requests, never durations.

const FAKE = (env as unknown as { TEST_RATE_LIMITED_URL: string }).TEST_RATE_LIMITED_URL;
const SLOW = 60_000;

interface Stats {
  requests: number;
  ok: number;
  limited: number;
  early: number;
  log: { token: string; at: number; status: number }[];
}

let counter = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${counter++}${Math.random().toString(36).slice(2, 6)}`;

/** A fresh tenant of the fake, answering as `config` says. */
async function tenant(config: Record<string, unknown>): Promise<string> {
  const name = unique("g");
  const response = await fetch(`${FAKE}/__config/${name}`, { method: "POST", body: JSON.stringify(config) });
  expect(response.status).toBe(200);
  return name;
}

const stats = async (name: string): Promise<Stats> => (await fetch(`${FAKE}/__stats/${name}`)).json();

/** A client of the generic http platform on the tenant, with the token, governed by the named governor. */
function client(name: string, token: string, governor: string) {
  return platformClient(
    httpApi,
    { base_url: `${FAKE}/t/${name}`, auth_header_value: `Bearer ${token}` },
    { policy: { allowPrivateNetworks: true }, governor: governorFor(env, governor, httpApi) },
  );
}
type Client = ReturnType<typeof client>;

const get = (c: Client) => c.request<{ ok: boolean }>({ method: "GET", path: "/items" });

/** What a workflow step does with a retry policy: a 429 is tried again (after the governor's wait). */
async function untilDone(c: Client): Promise<{ ok: boolean }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await get(c);
    } catch (error) {
      if (!(error instanceof PlatformError && error.status === 429) || attempt >= 10) throw error;
    }
  }
}

const refused = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error) => error,
  );

const governorStub = (name: string) => env.CONNECTION_GOVERNORS.get(env.CONNECTION_GOVERNORS.idFromName(name));

describe("the rate governor of a connection", () => {
  it(
    "paces a burst of concurrent calls under the limit it learned: after the first burst, few 429s, and every call succeeds",
    async () => {
      const name = await tenant({ limit: 10, fields: "x" });
      const c = client(name, "burst", unique("gov-"));

      // A connection nobody has limited yet: its calls skip the governor, so a cold burst over
      // the limit meets 429s, once. Those are held until Retry-After and then paced.
      const first = await Promise.all(Array.from({ length: 30 }, () => untilDone(c)));
      expect(first.every((r) => r.ok)).toBe(true);
      const afterFirst = await stats(name);
      expect(afterFirst.ok).toBe(30);
      expect(afterFirst.limited).toBeLessThanOrEqual(20 + 3);

      // Now governed: another burst of 30 goes at 90 % of the 10/s the fields state.
      const second = await Promise.all(Array.from({ length: 30 }, () => untilDone(c)));
      expect(second.every((r) => r.ok)).toBe(true);
      const afterSecond = await stats(name);
      expect(afterSecond.ok).toBe(60);
      expect(afterSecond.limited - afterFirst.limited).toBeLessThanOrEqual(2);
      expect(afterSecond.early).toBe(afterFirst.early);
    },
    SLOW,
  );

  it("leaves a connection far from its limit alone: its calls never reach the governor", async () => {
    const name = await tenant({ limit: 10, fields: "x" });
    const governor = unique("gov-");
    const id = String(env.CONNECTION_GOVERNORS.idFromName(governor));
    const c = client(name, "happy", governor);
    // Half the limit: at least 5 of 10 left in every answer.
    await Promise.all(Array.from({ length: 5 }, () => get(c)));
    expect((await listDurableObjectIds(env.CONNECTION_GOVERNORS)).map(String)).not.toContain(id);
    // Fifteen more: some answer shows less than 20 % left (or is a 429), and the governor takes over.
    await Promise.allSettled(Array.from({ length: 15 }, () => get(c)));
    expect((await listDurableObjectIds(env.CONNECTION_GOVERNORS)).map(String)).toContain(id);
  });

  for (const fields of ["x-epoch", "ietf"] as const) {
    it(
      `learns the limit from ${fields === "ietf" ? "RateLimit and RateLimit-Policy" : "X-RateLimit-Reset given as an epoch"}`,
      async () => {
        const name = await tenant({ limit: 5, fields });
        const governor = unique("gov-");
        const c = client(name, "learn", governor);
        await Promise.all(Array.from({ length: 8 }, () => untilDone(c)));
        expect((await governorStub(governor).inspect()).learned).toEqual({ limit: 5, windowMs: 1000 });
      },
      SLOW,
    );
  }

  for (const retryAfter of ["seconds", "date"] as const) {
    it(
      `holds every call until Retry-After (${retryAfter === "date" ? "an HTTP-date" : "seconds"}) has passed, and the waiting calls then succeed`,
      async () => {
        // No rate fields: the 429's Retry-After is all the governor learns.
        const name = await tenant({ limit: 2, fields: "none", retryAfter, penaltyMs: 1500 });
        const c = client(name, "hold", unique("gov-"));
        await get(c);
        await get(c);
        const error = await refused(get(c));
        expect(error).toBeInstanceOf(PlatformError);
        expect((error as PlatformError).status).toBe(429);

        const waited = await Promise.all([get(c), get(c), get(c)]);
        expect(waited.every((r) => r.ok)).toBe(true);
        const seen = await stats(name);
        // None of them reached the API before the time it had named.
        expect(seen).toMatchObject({ requests: 6, ok: 5, limited: 1, early: 0 });
      },
      SLOW,
    );
  }

  it(
    "governs two connections independently",
    async () => {
      const name = await tenant({ limit: 2, fields: "none", penaltyMs: 3000 });
      const held = client(name, "token-a", unique("gov-a-"));
      const free = client(name, "token-b", unique("gov-b-"));
      await get(held);
      await get(held);
      expect(await refused(get(held))).toBeInstanceOf(PlatformError);

      // A is held for 3 s; B, on another connection, goes at once.
      const [a, ...b] = await Promise.all([get(held), get(free), get(free)]);
      expect(a!.ok && b.every((r) => r.ok)).toBe(true);
      const { log, early } = await stats(name);
      expect(early).toBe(0);
      const order = log.map((entry) => `${entry.token === "Bearer token-a" ? "a" : "b"}${entry.status}`);
      expect(order).toEqual(["a200", "a200", "a429", "b200", "b200", "a200"]);
    },
    SLOW,
  );

  it(
    "keeps a hold through an eviction of its object",
    async () => {
      const name = await tenant({ limit: 1, fields: "none", penaltyMs: 2000 });
      const governor = unique("gov-");
      const c = client(name, "evicted", governor);
      await get(c);
      expect(await refused(get(c))).toBeInstanceOf(PlatformError);

      const stub = governorStub(governor);
      await evictDurableObject(stub);
      // A new instance, read from storage, still holds the connection.
      expect((await stub.inspect()).holdUntil).toBeGreaterThan(Date.now());
      expect((await get(c)).ok).toBe(true);
      expect(await stats(name)).toMatchObject({ requests: 3, ok: 2, limited: 1, early: 0 });
    },
    SLOW,
  );

  it("refuses a call whose slot is further off than the bound, with the time to come back, and sends nothing", async () => {
    const name = await tenant({ limit: 1, fields: "none", penaltyMs: 60_000 });
    const c = client(name, "bound", unique("gov-"));
    await get(c);
    expect(await refused(get(c))).toBeInstanceOf(PlatformError);

    const error = await refused(get(c));
    expect(error).toBeInstanceOf(HubError);
    expect((error as HubError).code).toBe("rate_limited");
    expect((error as HubError).hints.retryAfterSeconds).toBeGreaterThan(30);
    expect((error as HubError).hints.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect((await stats(name)).requests).toBe(2);
  });

  it(
    "governs a workflow's tool calls: a step waits for its connection's hold and succeeds on its only attempt",
    async () => {
      const user = await newUser();
      const { key } = await newApiKey(user);
      const name = await tenant({ limit: 1, fields: "none", penaltyMs: 2000 });
      const created = await call("/v1/connections", {
        token: key,
        json: { platform: "http", name: "Limited API", config: { base_url: `${FAKE}/t/${name}`, auth_header_value: "Bearer flow" } },
      });
      expect(created.status).toBe(201);
      const connectionId = (await json(created)).connection_id;
      const tool = (n: number) =>
        call("/v1/tools/execute", { token: key, json: { name: "http_call", arguments: { connection_id: connectionId, path: `/items/${n}` } } });

      expect((await json(await tool(1))).success).toBe(true);
      const limited = await json(await tool(2));
      expect(limited).toMatchObject({ success: false });
      expect(limited.error_message).toContain("429");

      // The connection's governor (the one every door shares) now holds it.
      const row = await env.DB.prepare("SELECT uid FROM connections WHERE id = ?").bind(connectionId).first<{ uid: string }>();
      expect((await governorStub(connectionGovernorName(row!)).inspect()).holdUntil).toBeGreaterThan(Date.now());

      const workflow = await newWorkflow(key, {
        steps: [{ id: "fetch", type: "tool", tool: "http_call", arguments: { connection_id: connectionId, path: "/items/3" } }],
      });
      const run = await settled(key, await execute(key, workflow.id));
      expect(run.status).toBe("succeeded");
      expect(run.steps.find((s: any) => s.step_id === "fetch")).toMatchObject({ status: "succeeded", attempts: 1 });
      expect(await stats(name)).toMatchObject({ requests: 3, ok: 2, limited: 1, early: 0 });
    },
    SLOW,
  );

  it(
    "parks a workflow step held back longer than the in-process bound: no attempt spent, back when the hold ends",
    async () => {
      const { key } = await newApiKey(await newUser());
      const name = await tenant({ limit: 1, fields: "none", penaltyMs: 120_000 });
      const created = await json(
        await call("/v1/connections", {
          token: key,
          json: { platform: "http", name: "Slow API", config: { base_url: `${FAKE}/t/${name}`, auth_header_value: "Bearer park" } },
        }),
      );
      const tool = (n: number) =>
        call("/v1/tools/execute", { token: key, json: { name: "http_call", arguments: { connection_id: created.connection_id, path: `/items/${n}` } } });
      expect((await json(await tool(1))).success).toBe(true);
      expect((await json(await tool(2))).error_message).toContain("429");

      const workflow = await newWorkflow(key, {
        steps: [{ id: "fetch", type: "tool", tool: "http_call", arguments: { connection_id: created.connection_id, path: "/items/3" } }],
      });
      const id = await execute(key, workflow.id);
      const step = async () => (await json(await call(`/v1/executions/${id}`, { token: key }))).steps?.find((s: any) => s.step_id === "fetch");
      const deadline = Date.now() + 20_000;
      let parked = await step();
      while (parked?.status !== "retrying" && Date.now() < deadline) {
        await scheduler.wait(100);
        parked = await step();
      }
      // Waiting is not a failed attempt: the step is parked with none spent, until the hold ends.
      expect(parked).toMatchObject({ status: "retrying", attempts: 0 });
      expect(parked.error_message).toContain("is limiting this connection's calls");
      expect(Date.parse(parked.resume_at)).toBeGreaterThan(Date.now() + 30_000);
      expect((await stats(name)).requests).toBe(2);
      await call(`/v1/executions/${id}/cancel`, { method: "POST", token: key });
    },
    SLOW,
  );
});
