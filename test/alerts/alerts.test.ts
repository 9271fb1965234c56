import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sendDueAlerts } from "../../src/alerts/deliver";
import { runtimeFor } from "../../src/core/context";
import { FAKE, fakeRequests, newConnection, scenarioName } from "../approvals/helpers";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { hmac } from "../helpers/provider-signatures";
import { execute, newWorkflow, settled } from "../helpers/runs";
import { connectPricedModel } from "../usage/helpers";

type Recorded = Awaited<ReturnType<typeof fakeRequests>>[number];

interface Account {
  key: string;
  /** The webhook signing secret, as the first PUT answered it. */
  secret: string;
  /** The fake's scenario the account's webhook posts to. */
  scenario: string;
}

/** A user whose alerts go to a webhook of its own on the fake. */
async function accountWithAlerts(on: string[]): Promise<Account> {
  const { key } = await newApiKey(await newUser());
  const scenario = scenarioName("alerts");
  const put = await call("/v1/me/alerts", { token: key, method: "PUT", json: { on, notify: [{ via: "webhook", url: `${FAKE()}/s/${scenario}/hook` }] } });
  expect(put.status).toBe(200);
  const body = await json(put);
  expect(body.signing_secret).toMatch(/^whsec_/);
  return { key, secret: body.signing_secret, scenario };
}

/** Runs a workflow whose one step throws, to its end. */
async function failedRun(key: string): Promise<string> {
  const workflow = await newWorkflow(key, {
    steps: [{ id: "boom", type: "code", code: "throw new Error('out of stock');", retry: { max_attempts: 1, delay_seconds: 0 } }],
  });
  const id = await execute(key, workflow.id);
  expect((await settled(key, id)).status).toBe("failed");
  return id;
}

/** One pass of the cron's alert sweep, at `now`. */
const sweep = (now = Date.now()) => sendDueAlerts(runtimeFor(env), now);

/** Verifies a message as a receiver would (DESIGN §3) with the account's signing secret; answers its body. */
async function verified(account: Account, message: Recorded): Promise<any> {
  const timestamp = message.headers["x-hub-timestamp"]!;
  expect(message.headers["x-hub-event"]).toBe("alerts.digest");
  expect(message.headers["x-hub-signature"]).toBe(`sha256=${await hmac(account.secret, `${timestamp}.${message.raw}`, "hex")}`);
  return JSON.parse(message.raw);
}

describe("alerts (DESIGN §6.5)", () => {
  it("PUT and GET: unknown events and channels that cannot work are 422; the signing secret is answered once", async () => {
    const { key } = await newApiKey(await newUser());
    expect(await json(await call("/v1/me/alerts", { token: key }))).toEqual({ on: [], notify: [], min_interval_seconds: 900, delivery: [] });
    const put = (body: unknown) => call("/v1/me/alerts", { token: key, method: "PUT", json: body });
    const hook = { via: "webhook", url: `${FAKE()}/s/${scenarioName("alerts-put")}/hook` };

    const unknown = await expectProblem(await put({ on: ["run_exploded"], notify: [hook] }), 422, "validation_failed");
    expect(unknown.errors?.map((e) => e.field)).toEqual(["on.0"]);
    const badChannel = await expectProblem(await put({ on: ["run_failed"], notify: [{ via: "pager", to: "me" }] }), 422, "validation_failed");
    expect(badChannel.errors?.[0]?.field).toMatch(/^notify\.0/);
    await expectProblem(await put({ on: ["run_failed"], notify: [] }), 422, "validation_failed");
    await expectProblem(await put({ on: ["run_failed"], notify: [hook], min_interval_seconds: 5 }), 422, "validation_failed");
    // Another user's connection is no channel of yours.
    const { key: otherKey } = await newApiKey(await newUser());
    const theirs = await newConnection(otherKey, "slack", { bot_token: "xoxb-not-yours-1" });
    const notYours = await expectProblem(
      await put({ on: ["run_failed"], notify: [{ via: "slack", connection_id: theirs, channel: "#ops" }] }),
      422,
      "validation_failed",
    );
    expect(notYours.errors).toEqual([{ location: "body", field: "notify.0", message: `You have no connection ${theirs}.` }]);

    const first = await json(await put({ on: ["run_failed", "budget_exceeded"], notify: [hook], min_interval_seconds: 600 }));
    expect(first).toMatchObject({ on: ["run_failed", "budget_exceeded"], notify: [hook], min_interval_seconds: 600 });
    expect(first.signing_secret).toMatch(/^whsec_/);
    // Never again, unless rotated.
    const read = await json(await call("/v1/me/alerts", { token: key }));
    expect(read).toEqual({
      on: ["run_failed", "budget_exceeded"],
      notify: [hook],
      min_interval_seconds: 600,
      delivery: [{ last_sent_at: null, pending_events: 0, last_error: null }],
    });
    expect((await json(await put({ on: ["run_failed"], notify: [hook] }))).signing_secret).toBeUndefined();
    const rotated = await json(await put({ on: ["run_failed"], notify: [hook], rotate_signing_secret: true }));
    expect(rotated.signing_secret).toMatch(/^whsec_/);
    expect(rotated.signing_secret).not.toBe(first.signing_secret);

    expect((await call("/v1/me/alerts", { token: key, method: "DELETE" })).status).toBe(204);
    expect((await json(await call("/v1/me/alerts", { token: key }))).on).toEqual([]);
  });

  it("a failed run is one signed message; failures within the interval wait for the next one, which lists them all", async () => {
    const account = await accountWithAlerts(["run_failed"]);
    const first = await failedRun(account.key);
    const second = await failedRun(account.key);
    await sweep();

    const [message, ...others] = await fakeRequests(account.scenario);
    expect(others).toHaveLength(0);
    const digest = await verified(account, message!);
    expect(digest).toMatchObject({ type: "alerts.digest", since: null, counts: { run_failed: 2 }, more: 0, not_recorded: 0 });
    expect(digest.items.map((item: any) => [item.kind, item.id, item.link])).toEqual([
      ["run_failed", first, `/app/executions/${first}`],
      ["run_failed", second, `/app/executions/${second}`],
    ]);
    expect(digest.items[0].summary).toContain("out of stock");

    // Within the interval: held back, and a sweep sends nothing.
    const third = await failedRun(account.key);
    await sweep();
    expect(await fakeRequests(account.scenario)).toHaveLength(1);
    const waiting = await json(await call("/v1/me/alerts", { token: account.key }));
    expect(waiting.delivery).toEqual([{ last_sent_at: expect.any(String), pending_events: 1, last_error: null }]);

    // Once the interval has passed, the rest goes.
    await sweep(Date.now() + 901_000);
    const all = await fakeRequests(account.scenario);
    expect(all).toHaveLength(2);
    const next = await verified(account, all[1]!);
    expect(next).toMatchObject({ counts: { run_failed: 1 }, since: digest.sent_at });
    expect(next.items.map((item: any) => item.id)).toEqual([third]);
  });

  it("a send that fails keeps the events for the next sweep", async () => {
    const account = await accountWithAlerts(["run_failed"]);
    await scriptFakeFailure(account.scenario);
    const run = await failedRun(account.key);
    await sweep();
    const state = await json(await call("/v1/me/alerts", { token: account.key }));
    expect(state.delivery).toEqual([{ last_sent_at: null, pending_events: 1, last_error: "the receiver answered 503" }]);

    await sweep();
    const [refused, delivered] = await fakeRequests(account.scenario);
    expect(refused).toBeDefined();
    expect((await verified(account, delivered!)).items.map((item: any) => item.id)).toEqual([run]);
  });

  it("a budget that stops a model request is budget_exceeded; another account's events never reach your channels", async () => {
    const account = await accountWithAlerts(["budget_exceeded", "run_failed"]);
    const bystander = await accountWithAlerts(["budget_exceeded", "run_failed"]);
    await connectPricedModel(account.key, scenarioName("alerts-model"));
    const me = await json(await call("/v1/me", { token: account.key }));
    // The day's spending is already past the budget: the next model request is refused before it is made.
    await env.DB.prepare(
      "INSERT INTO model_usage (user_id, provider, model, input_tokens, output_tokens, cost_nanousd) VALUES (?, 'openai', 'gpt-4o-mini', 100, 10, 0)",
    )
      .bind(me.id)
      .run();
    await call("/v1/me/budget", { token: account.key, method: "PUT", json: { max_tokens_per_day: 100 } });
    await expectProblem(await call("/v1/chat/test", { token: account.key, json: { content: "Hi", provider: "openai" } }), 409, "budget_exceeded");
    await failedRun(account.key);
    await sweep();

    const [message] = await fakeRequests(account.scenario);
    const digest = await verified(account, message!);
    expect(digest.counts).toEqual({ budget_exceeded: 1, run_failed: 1 });
    expect(digest.items[0]).toMatchObject({
      kind: "budget_exceeded",
      summary: "The account's budget max_tokens_per_day (100) reached: the account used 110 tokens today (UTC).",
      link: "/app/usage",
    });
    expect(await fakeRequests(bystander.scenario)).toHaveLength(0);
  });
});

/** The fake's next answer for the scenario is a 503. */
async function scriptFakeFailure(scenario: string): Promise<void> {
  expect((await fetch(`${FAKE()}/__script/${scenario}`, { method: "POST", body: JSON.stringify([{ status: 503, body: {} }]) })).status).toBe(204);
}
