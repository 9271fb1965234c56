import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type ApprovalRequest, decideApproval, requestApproval } from "../../src/approvals/service";
import { type ServiceContext, delegatedContext, runtimeFor } from "../../src/core/context";
import { call, json } from "../helpers/api";
import { Browser, newEmail } from "./browser";

interface Person {
  browser: Browser;
  key: string;
  userId: number;
  /** The context a turn of theirs asks for approvals with. */
  ctx: ServiceContext;
}

async function person(): Promise<Person> {
  const browser = new Browser();
  await browser.register(newEmail());
  const key = await browser.apiKey();
  const me = await json(await call("/v1/me", { token: key }));
  return { browser, key, userId: me.id, ctx: delegatedContext(runtimeFor(env as never), me.id, "key_0") };
}

/** A call of math_evaluate a policy rule (rule 2 of the account's) asked a person about. */
function ask(who: Person, request: Partial<ApprovalRequest> = {}) {
  return requestApproval(who.ctx, {
    tool: "math_evaluate",
    arguments: { expression: "6*7" },
    effect: "write",
    rule: { tool: "math_*", action: "ask", source: "account", index: 1 },
    ttlSeconds: 3600,
    notify: [],
    ...request,
  });
}

const pageOf = (id: string) => `/app/approvals/${id}`;

async function decide(who: Person, id: string, step: string, fields: Record<string, string> = {}) {
  return who.browser.request(pageOf(id), { form: { step, ...fields, csrf_token: await who.browser.csrf("/app/approvals") } });
}

async function viaApi(who: Person, id: string) {
  const response = await call(`/v1/approvals/${id}`, { token: who.key });
  expect(response.status).toBe(200);
  return json(response);
}

/** The rows of the list's table, each as its HTML. */
const rowsOf = (html: string) => [...html.matchAll(/<tr><td data-label="Tool">[\s\S]*?<\/tr>/g)].map((m) => m[0]);

describe("the dashboard's approvals pages", () => {
  it("lists a pending approval with its tool, effect, arguments and who asked, and shows the call and the rule in full", async () => {
    const me = await person();
    expect((await call("/app/approvals")).status).toBe(303);
    const empty = await (await me.browser.request("/app/approvals")).text();
    expect(empty).toContain('<a href="/app/approvals">Approvals</a>');
    expect(empty).toContain("Nothing waits for you");

    const approval = await ask(me, { agentId: "agt-1", conversationId: 4242, executionId: "exe_abc", stepId: "send" });
    const response = await me.browser.request("/app/approvals");
    expect(response.status).toBe(200);
    const list = await response.text();
    const [row, ...others] = rowsOf(list);
    expect(others).toHaveLength(0);
    expect(row).toContain(`<a href="/app/approvals/${approval.id}"><code>math_evaluate</code></a>`);
    expect(row).toContain('<span class="badge effect-write">write</span>');
    expect(row).toContain("{&quot;expression&quot;:&quot;6*7&quot;}");
    expect(row).toContain('<a href="/app/agents/agt-1">');
    expect(row).toContain('<a href="/app/conversations/4242">Conversation 4242</a>');
    expect(row).toContain('<a href="/app/executions/exe_abc">');
    expect(row).toContain(`<time datetime="${approval.requested_at}">`);
    expect(row).toContain(`<time datetime="${approval.expires_at}">`);
    expect(row).toContain('<span class="badge pending">Pending</span>');

    const detail = await (await me.browser.request(pageOf(approval.id))).text();
    expect(detail).toContain("<h1>Approval: <code>math_evaluate</code></h1>");
    expect(detail).toContain("&quot;expression&quot;: &quot;6*7&quot;");
    expect(detail).toContain("Rule 2 of your account&#39;s tool policies");
    expect(detail).toContain("&quot;tool&quot;: &quot;math_*&quot;");
    expect(detail).toContain('<button type="submit" name="step" value="approve">Approve</button>');
    expect(detail).toContain('<button type="submit" name="step" value="deny" class="danger">Deny</button>');
    expect(detail).toMatch(
      /<textarea id="decision-arguments" class="json" name="arguments"[^>]*>\{\n {2}&quot;expression&quot;: &quot;6\*7&quot;\n\}<\/textarea>/,
    );
  });

  it("approves with edited arguments: the API shows it approved with them, decided by the person", async () => {
    const me = await person();
    const approval = await ask(me);
    const response = await decide(me, approval.id, "approve", { arguments: '{"expression": "2+2"}', note: "smaller" });
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe(`/app/approvals/${approval.id}?decided=1`);

    const decided = await viaApi(me, approval.id);
    expect(decided).toMatchObject({ status: "approved", decided_by: `user:${me.userId}`, note: "smaller" });
    expect(decided.arguments).toMatchObject({ expression: "2+2" });

    const shown = await (await me.browser.request(response.headers.get("Location")!)).text();
    expect(shown).toContain("Approved: the call runs with the arguments below.");
    expect(shown).toContain("&quot;expression&quot;: &quot;2+2&quot;");
    expect(shown).toContain(`<code>user:${me.userId}</code>`);
    expect(shown).not.toContain('value="approve"');

    // Unedited arguments approve the call as asked.
    const asIs = await ask(me, { arguments: { expression: "1+1" } });
    const typed = JSON.stringify(asIs.arguments, null, 2);
    expect((await decide(me, asIs.id, "approve", { arguments: typed })).status).toBe(303);
    expect(await viaApi(me, asIs.id)).toMatchObject({ status: "approved", arguments: { expression: "1+1" } });
  });

  it("shows arguments that are not JSON, or that the tool's schema refuses, as an error and leaves the approval pending", async () => {
    const me = await person();
    const approval = await ask(me);

    const broken = await decide(me, approval.id, "approve", { arguments: '{"expression": "2+2"', note: "kept" });
    expect(broken.status).toBe(422);
    const brokenPage = await broken.text();
    expect(brokenPage).toContain("The arguments is not valid JSON");
    // The form keeps what was typed.
    expect(brokenPage).toContain("{&quot;expression&quot;: &quot;2+2&quot;</textarea>");
    expect(brokenPage).toMatch(/name="note"[^>]*>kept<\/textarea>/);

    const refused = await decide(me, approval.id, "approve", { arguments: '{"expression": 5}' });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain("The edited arguments do not fit math_evaluate&#39;s input schema.");

    const notObject = await decide(me, approval.id, "approve", { arguments: "[1, 2]" });
    expect(notObject.status).toBe(422);
    expect(await notObject.text()).toContain("The arguments must be a JSON object");

    expect(await viaApi(me, approval.id)).toMatchObject({ status: "pending", decided_by: null, arguments: { expression: "6*7" } });
  });

  it("denies with a note, and a second decision shows why it cannot be decided again", async () => {
    const me = await person();
    const approval = await ask(me);
    // Deny ignores the arguments field, even when it does not parse.
    const denied = await decide(me, approval.id, "deny", { arguments: "not json", note: "Not on a Friday." });
    expect(denied.status).toBe(303);
    expect(await viaApi(me, approval.id)).toMatchObject({
      status: "denied",
      note: "Not on a Friday.",
      decided_by: `user:${me.userId}`,
      arguments: { expression: "6*7" },
    });
    const shown = await (await me.browser.request(`${pageOf(approval.id)}?decided=1`)).text();
    expect(shown).toContain("Denied: the call does not run, and the model is told so.");
    expect(shown).toContain("Note: Not on a Friday.");

    const again = await decide(me, approval.id, "approve", { arguments: '{"expression": "6*7"}' });
    expect(again.status).toBe(409);
    const againPage = await again.text();
    expect(againPage).toContain(`Approval ${approval.id} was already denied by user:${me.userId}.`);
    expect(againPage).not.toContain('value="approve"');
    expect(await viaApi(me, approval.id)).toMatchObject({ status: "denied" });

    const overdue = await ask(me, { ttlSeconds: -1 });
    const late = await decide(me, overdue.id, "approve", { arguments: '{"expression": "6*7"}' });
    expect(late.status).toBe(409);
    expect(await late.text()).toContain("it can no longer be decided");
  });

  it("answers another person's approval as not found, on its page and to its form", async () => {
    const owner = await person();
    const stranger = await person();
    const approval = await ask(owner);

    expect((await stranger.browser.request(pageOf(approval.id))).status).toBe(404);
    const posted = await decide(stranger, approval.id, "approve", { arguments: '{"expression": "1"}' });
    expect(posted.status).toBe(404);
    expect(await posted.text()).toContain("You have no approval with that id.");
    expect((await stranger.browser.request("/app/approvals?status=all")).status).toBe(200);
    expect(await (await stranger.browser.request("/app/approvals?status=all")).text()).not.toContain(approval.id);
    expect(await viaApi(owner, approval.id)).toMatchObject({ status: "pending" });
    expect((await owner.browser.request("/app/approvals/no-such-approval")).status).toBe(404);
  });

  it("filters by status with tabs, and pages through older approvals with the cursor", async () => {
    const me = await person();
    const pending = await ask(me, { tool: "datetime_now", arguments: {} });
    const approved = await ask(me);
    await decideApproval(me.ctx, approved.id, { decision: "approve" }, `user:${me.userId}`);
    const denied = await ask(me);
    await decideApproval(me.ctx, denied.id, { decision: "deny" }, `user:${me.userId}`);
    const expired = await ask(me, { ttlSeconds: -1 });

    const listed = async (query: string) => {
      const html = await (await me.browser.request(`/app/approvals${query}`)).text();
      return { html, ids: [pending, approved, denied, expired].filter((a) => html.includes(a.id)).map((a) => a.id) };
    };
    const first = await listed("");
    expect(first.ids).toEqual([pending.id]);
    expect(first.html).toContain('<a href="/app/approvals" aria-current="page">Pending</a>');
    expect((await listed("?status=approved")).ids).toEqual([approved.id]);
    expect((await listed("?status=denied")).ids).toEqual([denied.id]);
    const expiredList = await listed("?status=expired");
    expect(expiredList.ids).toEqual([expired.id]);
    expect(expiredList.html).toContain('<a href="/app/approvals?status=expired" aria-current="page">Expired</a>');
    expect((await listed("?status=all")).ids).toHaveLength(4);
    expect((await me.browser.request("/app/approvals?status=maybe")).status).toBe(400);
    expect((await me.browser.request("/app/approvals?cursor=nonsense")).status).toBe(400);

    // More pending approvals than a page holds, each a millisecond older than the last.
    const insert = env.DB.prepare(
      "INSERT INTO approvals (id, user_id, tool, arguments, effect, rule, requested_at, expires_at) VALUES (?, ?, 'uuid_generate', '{}', 'read', '{}', ?, ?)",
    );
    const start = Date.now() - 60_000;
    await env.DB.batch(Array.from({ length: 52 }, (_, i) => insert.bind(`apr_page_${me.userId}_${i}`, me.userId, start - i, Date.now() + 3_600_000)));
    const page1 = await (await me.browser.request("/app/approvals")).text();
    expect(rowsOf(page1)).toHaveLength(50);
    const older = page1.match(/<a href="\/app\/approvals\?cursor=([^"]+)">Older approvals<\/a>/);
    expect(older).not.toBeNull();
    const page2 = await (await me.browser.request(`/app/approvals?cursor=${older![1]}`)).text();
    // 53 pending in all (the one asked above is the newest): three on the second page.
    expect(rowsOf(page2)).toHaveLength(3);
    expect(page2).toContain(`apr_page_${me.userId}_51`);
    expect(page2).toContain('<a href="/app/approvals">Newest approvals</a>');
    expect(page2).not.toContain("Older approvals");
  });
});
