import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { eventRow } from "../../src/agents/events";
import { createDb } from "../../src/db/client";
import { agentEvents } from "../../src/db/schema";
import { call, json, ORIGIN } from "../helpers/api";
import { signStripe, signToken } from "../helpers/provider-signatures";
import { newWorkflow } from "../helpers/runs";
import { Browser, newEmail } from "./browser";

const SECRET = "tok_dash_4eC39HqLyjWDarjtT1zdp7dc";

/** A signed-in person with an agent deployed (through the API) from a workflow with this trigger. */
async function agentWith(trigger: { trigger_type: string; trigger_config: Record<string, unknown> }) {
  const browser = new Browser();
  await browser.register(newEmail());
  const key = await browser.apiKey();
  const workflow = await newWorkflow(key, { workflow_name: "Inbound", ...trigger, steps: [{ id: "a", type: "set", values: { x: 1 } }] });
  const deployed = await call("/v1/agents/deploy", { token: key, json: { workflow_id: workflow.id, agent_config: { name: "Hook agent" } } });
  expect(deployed.status).toBe(201);
  const agent = await json(deployed);
  return { browser, key, agentId: agent.agent_id as string, path: `/app/agents/${agent.agent_id}` };
}

const pageOf = async (browser: Browser, path: string) => {
  const response = await browser.request(path);
  expect(response.status).toBe(200);
  return response.text();
};

/** The trigger card of the agent's page. */
const triggerCard = (html: string) => html.slice(html.indexOf('id="agent-trigger"'), html.indexOf('id="agent-schedule"'));

async function setSecret(browser: Browser, path: string, secret: string, csrf?: string) {
  return browser.request(`${path}/webhook-secret`, { form: { step: "set_secret", secret, csrf_token: csrf ?? (await browser.csrf(path)) } });
}

const deliverToken = (agentId: string, token: string, body = JSON.stringify({ email: "ada@example.com" })) =>
  call(`/v1/hooks/agents/${agentId}`, { body, headers: signToken({ secret: token, body, via: "header" }).headers });

describe("the agent page's trigger panel", () => {
  it("a provider webhook: the absolute URL, the scheme with where to paste it, the event types, and the signing secret form", async () => {
    const { browser, path, agentId } = await agentWith({
      trigger_type: "webhook",
      trigger_config: { verify: "stripe", event_types: ["checkout.session.completed", "invoice.paid"] },
    });
    const card = triggerCard(await pageOf(browser, path));
    expect(card).toContain("Trigger: webhook");
    expect(card).toMatch(new RegExp(`<input id="webhook-url" type="text" readonly="" value="${ORIGIN}/v1/hooks/agents/${agentId}"`));
    expect(card).toContain("<dt>Verification</dt><dd>Stripe signature (Stripe-Signature)</dd>");
    expect(card).toContain("Developers → Webhooks → Add endpoint");
    expect(card).toContain("signing secret (it starts with whsec_)");
    expect(card).toContain("<dt>Event types</dt><dd>checkout.session.completed, invoice.paid</dd>");
    expect(card).toContain("<dt>Last event</dt><dd>never</dd>");
    expect(card).toContain("No signing secret is set yet");
    expect(card).toContain(`<form method="post" action="${path}/webhook-secret" id="signing-secret-form">`);
    expect(card).toMatch(/<input id="signing-secret" type="password" name="secret" value="" autocomplete="new-password"/);
    expect(card).toContain('name="csrf_token"');
    expect(card).toContain(`<a href="${path}/events">Events log</a>`);
    // The hub's own scheme is not offered for a provider webhook.
    expect(card).not.toContain("X-Hub-Signature");
  });

  it("a hub webhook: the secret was shown at deploy, and no signing secret is asked for", async () => {
    const { browser, path } = await agentWith({ trigger_type: "webhook", trigger_config: {} });
    const card = triggerCard(await pageOf(browser, path));
    expect(card).toContain("<dt>Verification</dt><dd>Hub signature (X-Hub-Signature)</dd>");
    expect(card).toContain("shown once when it was deployed");
    expect(card).toContain("No signing secret is needed.");
    expect(card).toContain("<dt>Event types</dt><dd>all</dd>");
    expect(card).not.toContain("signing-secret-form");
  });

  it("a poll: the tool, interval, paths, emit mode, next poll and last event", async () => {
    const scenario = `dash-poll-${crypto.randomUUID()}`;
    await fetch(`${env.TEST_FAKE_URL}/__respond/${scenario}`, { method: "POST", body: JSON.stringify({ status: 200, body: { items: [] } }) });
    const { browser, path } = await agentWith({
      trigger_type: "poll",
      trigger_config: {
        tool: "http_request",
        arguments: { url: `${env.TEST_FAKE_URL}/s/${scenario}/items`, headers: { Authorization: "Bearer poll-arg-secret" } },
        interval_seconds: 3600,
        items_path: "body.items",
        id_path: "id",
        emit: "batch",
      },
    });
    const card = triggerCard(await pageOf(browser, path));
    expect(card).toContain("Trigger: poll");
    expect(card).toContain("<dt>Tool</dt><dd><code>http_request</code></dd>");
    expect(card).toContain("<dt>Interval</dt><dd>Every hour</dd>");
    expect(card).toContain("<dt>Items at</dt><dd><code>body.items</code></dd>");
    expect(card).toContain("<dt>Item key at</dt><dd><code>id</code></dd>");
    expect(card).toContain("<dt>Runs</dt><dd>one run per poll with all new items</dd>");
    expect(card).toContain("<dt>Items there at the first poll</dt><dd>are remembered, start nothing</dd>");
    expect(card).toContain("<dt>Next poll</dt>");
    expect(card).toContain("<dt>Last event</dt>");
    // The poll's arguments (which may hold a key) are not shown.
    expect(card).not.toContain("poll-arg-secret");
  });

  it("a schedule: the schedule and its next run", async () => {
    const { browser, path } = await agentWith({ trigger_type: "schedule", trigger_config: { type: "interval", interval_seconds: 3600 } });
    const card = triggerCard(await pageOf(browser, path));
    expect(card).toContain("Trigger: schedule");
    expect(card).toContain("<dt>Schedule</dt><dd>Every hour</dd>");
    expect(card).toMatch(/<dt>Next run<\/dt><dd>\w{3}, \d+ \w{3} \d{4}/);
  });
});

describe("setting a webhook's signing secret from the dashboard", () => {
  it("saves it without showing it again, and a token delivery with it is then accepted", async () => {
    const { browser, path, agentId } = await agentWith({ trigger_type: "webhook", trigger_config: { verify: "token" } });
    expect((await deliverToken(agentId, SECRET)).status).toBe(401);

    const saved = await setSecret(browser, path, `  ${SECRET}  `);
    expect(saved.status).toBe(303);
    expect(saved.headers.get("Location")).toBe(`${path}?secret=saved`);
    const html = await pageOf(browser, saved.headers.get("Location")!);
    expect(html).toContain('<p class="notice" role="status">Signing secret saved.</p>');
    expect(html).toContain("A signing secret is set. Setting another replaces it.");
    expect(html).not.toContain(SECRET);
    // Only the trimmed secret works: spaces around a pasted one are not part of it.
    expect((await deliverToken(agentId, SECRET)).status).toBe(202);
    const row = await env.DB.prepare("SELECT provider_secret FROM agents WHERE id = ?").bind(agentId).first<{ provider_secret: string }>();
    expect(row!.provider_secret).not.toContain(SECRET);
    // A link that claims "saved" for an agent with no secret says nothing.
    const other = await agentWith({ trigger_type: "webhook", trigger_config: { verify: "stripe" } });
    expect(await pageOf(other.browser, `${other.path}?secret=saved`)).not.toContain("Signing secret saved.");
  });

  it("refuses a secret out of bounds in the form, with 422, the field marked and empty, nothing saved", async () => {
    const { browser, path, agentId } = await agentWith({ trigger_type: "webhook", trigger_config: { verify: "token" } });
    const short = "too-short-123";
    const refused = await setSecret(browser, path, short);
    expect(refused.status).toBe(422);
    const html = await refused.text();
    expect(html).toContain('<p id="signing-secret-error" class="field-error">The signing secret must be 16 to 1000 characters long; the one given had 13.</p>');
    expect(html).toMatch(
      /<input id="signing-secret" type="password" name="secret" value=""[^>]*aria-describedby="signing-secret-hint signing-secret-error" aria-invalid="true"/,
    );
    expect(html).not.toContain(short);
    expect((await setSecret(browser, path, "x".repeat(1001))).status).toBe(422);
    expect((await deliverToken(agentId, short)).status).toBe(401);
    const row = await env.DB.prepare("SELECT provider_secret FROM agents WHERE id = ?").bind(agentId).first<{ provider_secret: string | null }>();
    expect(row!.provider_secret).toBeNull();
  });

  it("refuses the form without the CSRF token or with another person's, and a stranger gets 404", async () => {
    const { browser, path, agentId } = await agentWith({ trigger_type: "webhook", trigger_config: { verify: "token" } });
    expect((await browser.request(`${path}/webhook-secret`, { form: { step: "set_secret", secret: SECRET } })).status).toBe(403);
    const stranger = new Browser();
    await stranger.register(newEmail());
    const foreign = await stranger.csrf("/app/agents");
    expect((await setSecret(browser, path, SECRET, foreign)).status).toBe(403);
    const hijack = await setSecret(stranger, path, SECRET, foreign);
    expect(hijack.status).toBe(404);
    expect(await hijack.text()).not.toContain("Hook agent");
    expect((await deliverToken(agentId, SECRET)).status).toBe(401);
    // Signed out, the form sends the person to sign in.
    expect((await call(`${path}/webhook-secret`, { form: { step: "set_secret", secret: SECRET } })).status).toBe(303);
  });
});

describe("the agent's events log", () => {
  it("lists a started delivery (linked to its run) and rejected ones with their reasons, newest first, on the page and the agent's page", async () => {
    const { browser, path, agentId } = await agentWith({ trigger_type: "webhook", trigger_config: { verify: "token" } });
    const empty = await pageOf(browser, `${path}/events`);
    expect(empty).toContain('<p id="no-events">No events yet');
    expect(await pageOf(browser, path)).toContain("No events yet.");

    expect((await deliverToken(agentId, SECRET)).status).toBe(401);
    expect((await setSecret(browser, path, SECRET)).status).toBe(303);
    const started = await deliverToken(agentId, SECRET);
    expect(started.status).toBe(202);
    const { execution_id } = await json(started);
    expect((await deliverToken(agentId, `${SECRET}-wrong`)).status).toBe(401);

    const html = await pageOf(browser, `${path}/events`);
    expect(html).toContain("<h1>Events of Hook agent</h1>");
    const rows = [...html.matchAll(/<tr><td data-label="Received">(.*?)<\/tr>/g)].map((m) => m[1]!);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toContain("Rejected");
    expect(rows[0]).toContain("The token does not match.");
    expect(rows[1]).toContain("Started a run");
    expect(rows[1]).toContain(`<a href="/app/executions/${execution_id}"><code>${execution_id}</code></a>`);
    expect(rows[2]).toContain("Rejected");
    expect(rows[2]).toContain("No token signing secret is set for this agent");
    for (const row of rows) expect(row).toContain('<td data-label="Source">webhook</td>');
    expect(html).not.toContain(SECRET);
    expect(html).not.toContain("Older events");

    const agentPage = await pageOf(browser, path);
    expect(agentPage).toContain(`<a href="/app/executions/${execution_id}"><code>${execution_id}</code></a>`);
    expect(agentPage).toContain(`<a href="${path}/events">All events</a>`);
    expect(agentPage).toMatch(/<dt>Last event<\/dt><dd>\w{3}, /);
  });

  it("pages with the service's cursor: 50 a page, then the older ones, and refuses a cursor that is not one", async () => {
    const { browser, path, agentId } = await agentWith({ trigger_type: "webhook", trigger_config: { verify: "stripe" } });
    const db = createDb(env.DB);
    const start = Date.now() - 60_000;
    const rows = Array.from({ length: 53 }, (_, i) =>
      eventRow({ agentId, source: "webhook", outcome: "ignored", eventType: `type.${i}`, eventId: `evt_${i}`, receivedAt: new Date(start + i * 1000) }),
    );
    await db.batch(rows.map((row) => db.insert(agentEvents).values(row)) as [any, ...any[]]);

    const first = await pageOf(browser, `${path}/events`);
    expect(first.match(/<tr><td data-label="Received">/g)).toHaveLength(50);
    expect(first).toContain("<code>evt_52</code>");
    expect(first).not.toContain("<code>evt_2</code>");
    const next = first.match(/<a href="([^"]+)">Older events<\/a>/)![1]!.replaceAll("&amp;", "&");
    expect(next).toMatch(new RegExp(`^${path}/events\\?cursor=`));
    const second = await pageOf(browser, next);
    expect(second.match(/<tr><td data-label="Received">/g)).toHaveLength(3);
    expect(second).toContain("<code>evt_2</code>");
    expect(second).toContain("<code>evt_0</code>");
    expect(second).not.toContain("Older events");
    expect(second).toContain(`<a href="${path}/events">Newest events</a>`);

    expect((await browser.request(`${path}/events?cursor=not-a-cursor`)).status).toBe(400);
  });

  it("shows someone else's agent's events as not found", async () => {
    const { path, key, agentId } = await agentWith({ trigger_type: "webhook", trigger_config: { verify: "stripe" } });
    const body = JSON.stringify({ id: "evt_private", type: "invoice.paid" });
    expect((await call(`/v1/hooks/agents/${agentId}`, { body, headers: (await signStripe({ secret: SECRET, body })).headers })).status).toBe(401);
    expect((await json(await call(`/v1/agents/${agentId}/events`, { token: key }))).data).toHaveLength(1);
    const stranger = new Browser();
    await stranger.register(newEmail());
    const peek = await stranger.request(`${path}/events`);
    expect(peek.status).toBe(404);
    const html = await peek.text();
    expect(html).not.toContain("Hook agent");
    expect(html).not.toContain("No stripe signing secret");
    expect((await stranger.request("/app/agents/not-an-id/events")).status).toBe(404);
    expect((await call(`${path}/events`)).status).toBe(303);
  });
});
