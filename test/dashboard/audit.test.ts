import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";
import { Browser, newEmail } from "./browser";

async function signedIn() {
  const browser = new Browser();
  await browser.register(newEmail());
  return browser;
}

async function execute(token: string, expression: string) {
  const response = await call("/v1/tools/execute", { token, json: { name: "math_evaluate", arguments: { expression } } });
  expect(response.status).toBe(200);
  return json(response);
}

describe("the audit log page", () => {
  it("shows the person's own tool calls made through the API, newest first, secrets redacted, and no one else's", async () => {
    const browser = await signedIn();
    expect((await call("/app/audit")).status).toBe(303);
    expect(await (await browser.request("/app/audit")).text()).toContain("No tool calls yet.");

    const token = await browser.apiKey();
    const ok = await execute(token, "6*7");
    expect(ok.success).toBe(true);
    // A credential-looking value in the arguments is redacted before it is stored; the call fails.
    const failed = await execute(token, "Bearer abcdefghijklmnop");
    expect(failed.success).toBe(false);

    const response = await browser.request("/app/audit");
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain("<h1>Audit log</h1>");
    expect(page).not.toContain("No tool calls yet.");
    const rows = [...page.matchAll(/<tr><td data-label="Time">[\s\S]*?<\/tr>/g)].map((m) => m[0]);
    expect(rows).toHaveLength(2);
    // Newest first: the failed call, then the sum.
    expect(rows[0]).toContain("<code>math_evaluate</code>");
    expect(rows[0]).toMatch(/<span class="outcome outcome-error">Error<\/span><span>: .+<\/span>/);
    expect(rows[0]).toContain("[redacted]");
    expect(rows[0]).not.toContain("abcdefghijklmnop");
    expect(rows[1]).toContain('<span class="outcome outcome-success">Success</span>');
    expect(rows[1]).toMatch(/<td data-label="Duration">\d+ ms<\/td>/);
    expect(rows[1]).toContain("<details><summary>Show");
    expect(rows[1]).toContain("&quot;expression&quot;: &quot;6*7&quot;");
    expect(page).not.toContain("Older entries");

    const stranger = await signedIn();
    const theirs = await (await stranger.request("/app/audit")).text();
    expect(theirs).toContain("No tool calls yet.");
    expect(theirs).not.toContain("6*7");
  });

  it("pages through older entries by id", async () => {
    const browser = await signedIn();
    const token = await browser.apiKey();
    const me = await json(await call("/v1/me", { token }));
    // More calls than one page holds, written straight to the log (the tool-call rate limit is lower).
    const insert = env.DB.prepare(
      "INSERT INTO audit_logs (user_id, credential_id, call_id, tool, arguments, outcome, duration_ms, source) VALUES (?, 'test', ?, 'datetime_now', ?, 'success', 3, 'api')",
    );
    await env.DB.batch(Array.from({ length: 55 }, (_, i) => insert.bind(me.id, `call_page_${i}`, JSON.stringify({ n: i }))));

    const first = await (await browser.request("/app/audit")).text();
    expect([...first.matchAll(/<td data-label="Time">/g)]).toHaveLength(50);
    expect(first).toContain("call call_page_54");
    expect(first).not.toContain("call call_page_4<");
    const older = first.match(/<a href="\/app\/audit\?before=(\d+)">Older entries<\/a>/);
    expect(older).not.toBeNull();

    const second = await (await browser.request(`/app/audit?before=${older![1]}`)).text();
    expect([...second.matchAll(/<td data-label="Time">/g)]).toHaveLength(5);
    expect(second).toContain("call call_page_0<");
    expect(second).not.toContain("call call_page_54");
    expect(second).toContain('<a href="/app/audit">Newest entries</a>');
    expect(second).not.toContain("Older entries");

    expect((await browser.request("/app/audit?before=abc")).status).toBe(400);
  });
});
