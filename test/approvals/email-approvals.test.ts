import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ORIGIN, call } from "../helpers/api";
import { FAKE, type Owner, approvalOf, askApproval, fakeRequests, newConnection, newOwner, scenarioName } from "./helpers";

const TO = "ops-lead@acme.example";

/** Each email platform's connection on the fake, and where its send lands there. */
const PLATFORMS = [
  { platform: "resend", config: { api_key: "re_approvals_1234", default_from: "Acme Hub <hub@acme.example>" }, path: "/emails" },
  { platform: "sendgrid", config: { api_key: "SG.approvals.1234", default_from: "hub@acme.example" }, path: "/v3/mail/send" },
  { platform: "postmark", config: { server_token: "pm-approvals-1234" }, path: "/email", from: "hub@acme.example" },
  { platform: "mailgun", config: { api_key: "key-approvals-1234", domain: "mg.acme.test" }, path: "/v3/mg.acme.test/messages" },
  {
    platform: "brevo",
    config: { api_key: "xkeysib-approvals-1234", default_sender_email: "hub@acme.example" },
    path: "/brevo/v3/smtp/email",
    base: "/brevo/v3",
  },
] as const;

/** The email's plain text, in the platform's own field. */
function textOf(platform: string, request: { body: any; raw: string }): string {
  if (platform === "sendgrid") return request.body.content.find((c: any) => c.type === "text/plain").value;
  if (platform === "postmark") return request.body.TextBody;
  if (platform === "mailgun") return new URLSearchParams(request.raw).get("text") ?? "";
  if (platform === "brevo") return request.body.textContent;
  return request.body.text;
}

const linkIn = (text: string) => {
  const match = /http:\/\/hub\.test(\/approvals\/[A-Za-z0-9_.-]+)/.exec(text);
  if (!match) throw new Error(`no link in: ${text}`);
  return match[1]!;
};

async function emailed(owner: Owner, index = 0) {
  const entry = PLATFORMS[index]!;
  const scenario = scenarioName(entry.platform);
  const connectionId = await newConnection(owner.key, entry.platform, {
    ...entry.config,
    base_url: `${FAKE()}/s/${scenario}${"base" in entry ? entry.base : ""}`,
  });
  const channel = { via: "email" as const, connection_id: connectionId, to: TO, ...("from" in entry ? { from: entry.from } : {}) };
  return { scenario, channel, entry };
}

/** The approval page's form, posted as a browser on the page would (same origin). */
const decide = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  call(path, { method: "POST", form, headers: { Origin: ORIGIN, "Sec-Fetch-Site": "same-origin", ...headers } });

describe("approvals by email", () => {
  it.each(PLATFORMS.map((p, i) => [p.platform, i] as const))("%s sends the call and a link to decide it", async (_platform, index) => {
    const owner = await newOwner();
    const { scenario, channel, entry } = await emailed(owner, index);
    const approval = await askApproval(owner, [channel]);
    const sent = (await fakeRequests(scenario)).filter((r) => r.path === entry.path);
    expect(sent).toHaveLength(1);
    const text = textOf(entry.platform, sent[0]!);
    expect(text).toContain("Agent “Weekly cleanup” wants to run hubspot_delete_contact (destructive)");
    expect(text).toContain('"contact_id": "151"');
    expect(linkIn(text)).toMatch(/^\/approvals\/[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/);
    expect((await approvalOf(owner, approval.id)).status).toBe("pending");
  });

  it("the link's page shows the call and does not decide; a POST decides; then the link is dead", async () => {
    const owner = await newOwner();
    const { scenario, channel } = await emailed(owner);
    const approval = await askApproval(owner, [channel]);
    const [sent] = await fakeRequests(scenario);
    const path = linkIn(sent!.body.text);
    // Only hashes are stored: neither part of the link is in the approval's row.
    const row = await env.DB.prepare("select link_token_hash, notify from approvals where id = ?")
      .bind(approval.id)
      .first<{ link_token_hash: string; notify: string }>();
    const [lookup, own] = path.slice("/approvals/".length).split(".");
    expect(row!.link_token_hash).toBeTruthy();
    expect(JSON.stringify(row)).not.toContain(lookup);
    expect(JSON.stringify(row)).not.toContain(own);

    // Opened twice, as a mail scanner and then the person would: nothing is decided.
    for (let i = 0; i < 2; i++) {
      const shown = await call(path);
      expect(shown.status).toBe(200);
      expect(shown.headers.get("Cache-Control")).toBe("no-store");
      expect(shown.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
      const html = await shown.text();
      expect(html).toContain("hubspot_delete_contact");
      expect(html).toContain("destructive");
      expect(html).toContain("Weekly cleanup");
      expect(html).toContain("duplicate &lt;of 152&gt; &amp; stale");
      expect(html).toMatch(/<button[^>]*name="decision"[^>]*value="approve"/);
      expect(html).toMatch(/<button[^>]*name="decision"[^>]*value="deny"/);
    }
    expect((await approvalOf(owner, approval.id)).status).toBe("pending");

    // A form posted from another site is refused before anything is read.
    expect((await decide(path, { decision: "approve" }, { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
    expect((await approvalOf(owner, approval.id)).status).toBe("pending");

    const approved = await decide(path, { decision: "approve", note: "checked the duplicate" });
    expect(approved.status).toBe(200);
    expect(await approved.text()).toContain("Approved");
    const decided = await approvalOf(owner, approval.id);
    expect(decided).toMatchObject({ status: "approved", decided_by: `email:${TO}`, note: "checked the duplicate" });

    const gone = await call(path);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain("no longer valid");
    expect((await decide(path, { decision: "deny" })).status).toBe(404);
    expect((await approvalOf(owner, approval.id)).status).toBe("approved");
    expect((await env.DB.prepare("select link_token_hash from approvals where id = ?").bind(approval.id).first())!.link_token_hash).toBeNull();
  });

  it("unknown, altered and expired links all show the same page", async () => {
    const owner = await newOwner();
    const { scenario, channel } = await emailed(owner);
    await askApproval(owner, [channel], { ttlSeconds: 60 });
    const path = linkIn((await fakeRequests(scenario))[0]!.body.text);
    const unknown = `/approvals/${"A".repeat(22)}.${"B".repeat(22)}`;
    // The lookup part of a real link with another recipient's part: one recipient cannot pass for another.
    const altered = `${path.split(".")[0]}.${"C".repeat(22)}`;
    const pages = [];
    for (const p of [unknown, altered, "/approvals/short"]) {
      const response = await call(p);
      expect(response.status).toBe(404);
      pages.push(await response.text());
    }
    expect(new Set(pages).size).toBe(1);

    await env.DB.prepare("update approvals set expires_at = ? where link_token_hash is not null and user_id = ?")
      .bind(Date.now() - 1000, owner.userId)
      .run();
    const expired = await call(path);
    expect(expired.status).toBe(404);
    expect(await expired.text()).toBe(pages[0]);
  });

  it("with several recipients, the decision names the one whose link was used", async () => {
    const owner = await newOwner();
    const { scenario, channel } = await emailed(owner);
    const approval = await askApproval(owner, [channel, { ...channel, to: "cfo@acme.example" }]);
    const sent = await fakeRequests(scenario);
    expect(sent.map((r) => r.body.to)).toEqual([[TO], ["cfo@acme.example"]]);
    const cfoLink = linkIn(sent[1]!.body.text);
    expect(cfoLink).not.toBe(linkIn(sent[0]!.body.text));
    expect((await decide(cfoLink, { decision: "deny" })).status).toBe(200);
    expect(await approvalOf(owner, approval.id)).toMatchObject({ status: "denied", decided_by: "email:cfo@acme.example" });
    // The other recipient's link died with the decision.
    expect((await call(linkIn(sent[0]!.body.text))).status).toBe(404);
  });

  it("PUBLIC_URL, when set, is the link's origin", async () => {
    const owner = await newOwner({ PUBLIC_URL: "https://hub.acme.example/" });
    const { scenario, channel } = await emailed(owner);
    await askApproval(owner, [channel]);
    expect((await fakeRequests(scenario))[0]!.body.text).toMatch(/https:\/\/hub\.acme\.example\/approvals\/[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}\n/);
  });
});
