import { describe, expect, it } from "vitest";
import { Browser, newEmail } from "./browser";

async function signedIn() {
  const browser = new Browser();
  const email = newEmail();
  await browser.register(email);
  return Object.assign(browser, { email });
}

/** Posts a form of a page with that page's CSRF token, as a person clicking its button would. */
async function submit(browser: Browser, path: string, form: Record<string, string>, from = path) {
  return browser.request(path, { form: { ...form, csrf_token: await browser.csrf(from) } });
}

const html = async (browser: Browser, path: string) => {
  const response = await browser.request(path);
  return { status: response.status, html: await response.text() };
};

/** Creates a team workspace from the workspaces page; the dashboard then shows it. Answers its id. */
async function createWorkspace(browser: Browser, name: string) {
  const response = await submit(browser, "/app/workspaces", { step: "create", name });
  expect(response.status).toBe(303);
  const id = response.headers.get("Location")!.match(/^\/app\/workspaces\/(\d+)\/members$/)![1]!;
  return Number(id);
}

async function createWorkflow(browser: Browser, name: string) {
  const steps = JSON.stringify([{ id: "hello", type: "set", values: { greeting: "hi" } }]);
  const response = await submit(browser, "/app/workflows", { step: "create", name, description: "d", steps });
  expect(response.status).toBe(303);
  return Number(response.headers.get("Location")!.split("/").pop());
}

const switchTo = (browser: Browser, workspaceId: number, back = "/app/workflows") =>
  submit(browser, "/app/workspace", { step: "switch", workspace_id: String(workspaceId), back }, back);

const members = (id: number) => `/app/workspaces/${id}/members`;

describe("workspaces in the dashboard", () => {
  it("switches between workspaces: each page shows the chosen one's things, kept in a cookie", async () => {
    const ana = await signedIn();
    await createWorkflow(ana, "Mine alone");
    const team = await createWorkspace(ana, "Marketing");
    const shared = await createWorkflow(ana, "Shared plan");

    const teamList = (await html(ana, "/app/workflows")).html;
    expect(teamList).toContain("Shared plan");
    expect(teamList).not.toContain("Mine alone");
    // The switcher lists both, the shown one selected.
    expect(teamList).toMatch(new RegExp(`<option value="${team}" selected="">Marketing \\(owner\\)</option>`));
    expect(teamList).toContain(`<a href="/app/workspaces/${team}/members">Members</a>`);

    const back = await switchTo(ana, Number(teamList.match(/<option value="(\d+)">Personal<\/option>/)![1]), `/app/workflows/${shared}`);
    expect(back.status).toBe(303);
    // Back to the same section: the workflow left behind is not in the personal workspace.
    expect(back.headers.get("Location")).toBe("/app/workflows");
    const personal = (await html(ana, "/app/workflows")).html;
    expect(personal).toContain("Mine alone");
    expect(personal).not.toContain("Shared plan");

    const chosen = await switchTo(ana, team);
    const cookie = chosen.headers.getSetCookie().find((line) => line.startsWith("ahk_workspace="))!;
    expect(cookie).toMatch(new RegExp(`^ahk_workspace=${team};`));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect((await html(ana, "/app/workflows")).html).toContain("Shared plan");

    // Someone else's workspace cannot be chosen.
    const stranger = await signedIn();
    expect((await switchTo(stranger, team)).status).toBe(404);
    expect((await html(stranger, "/app/workflows")).html).not.toContain("Shared plan");
  });

  it("runs the team from the members page, refuses a viewer's changes, records it all in the trail, and drops a removed member back to personal", async () => {
    const [owner, admin, viewer] = await Promise.all([signedIn(), signedIn(), signedIn()]);
    const team = await createWorkspace(owner, "Support");
    const workflow = await createWorkflow(owner, "Triage tickets");

    expect((await submit(owner, members(team), { step: "invite", email: admin.email, role: "admin" })).status).toBe(303);
    // The admin invites, changes a role, and sees each refusal on the page.
    expect((await submit(admin, members(team), { step: "invite", email: viewer.email, role: "editor" })).status).toBe(303);
    const noAccount = await submit(admin, members(team), { step: "invite", email: newEmail(), role: "viewer" });
    expect(noAccount.status).toBe(422);
    expect(await noAccount.text()).toContain("the person must register first");
    const twice = await submit(admin, members(team), { step: "invite", email: viewer.email, role: "viewer" });
    expect(twice.status).toBe(409);
    expect(await twice.text()).toContain("already a member");

    const page = (await html(admin, members(team))).html;
    const viewerId = page.match(new RegExp(`id="role-(\\d+)"[^>]*>[\\s\\S]*?aria-label="Change the role of ${viewer.email.replace(/[.]/g, "\\.")}"`))![1]!;
    expect((await submit(admin, members(team), { step: "role", user_id: viewerId, role: "viewer" })).status).toBe(303);
    const listed = (await html(admin, `${members(team)}?done=role`)).html;
    expect(listed).toContain("Role changed.");
    expect(listed).toMatch(new RegExp(`${viewer.email.replace(/[.]/g, "\\.")}</td><td data-label="Role">viewer</td>`));

    // The viewer sees the workspace, no form to change it, and is refused when posting anyway.
    await switchTo(viewer, team);
    const viewed = (await html(viewer, "/app/workflows")).html;
    expect(viewed).toContain("Triage tickets");
    expect(viewed).toContain("You are a viewer in this workspace");
    expect(viewed).not.toContain('value="create"');
    expect((await html(viewer, `/app/workflows/${workflow}`)).html).not.toContain('value="delete"');
    const steps = JSON.stringify([{ id: "x", type: "set", values: {} }]);
    const created = await submit(viewer, "/app/workflows", { step: "create", name: "Sneaky", description: "d", steps });
    expect(created.status).toBe(403);
    expect(await created.text()).toContain("This needs the editor role");
    const deleted = await submit(viewer, `/app/workflows/${workflow}`, { step: "delete" });
    expect(deleted.status).toBe(403);
    const after = (await html(owner, "/app/workflows")).html;
    expect(after).toContain("Triage tickets");
    expect(after).not.toContain("Sneaky");
    // Managing members needs an admin: the service's refusal is shown on the members page.
    const invited = await submit(viewer, members(team), { step: "invite", email: owner.email, role: "viewer" });
    expect(invited.status).toBe(403);
    expect(await invited.text()).toContain("This needs the admin role");

    // The admin removes the viewer; the viewer's choice falls back to their personal workspace.
    expect((await submit(admin, members(team), { step: "remove", user_id: viewerId })).status).toBe(303);
    expect((await html(admin, members(team))).html).not.toContain(viewer.email);
    const fallback = await viewer.request("/app/workflows");
    expect(fallback.status).toBe(200);
    const fallbackHtml = await fallback.text();
    expect(fallbackHtml).not.toContain("Triage tickets");
    expect(fallbackHtml).toMatch(/<option value="\d+" selected="">Personal<\/option>/);
    expect(viewer.cookies.has("ahk_workspace")).toBe(false);
    expect((await html(viewer, members(team))).status).toBe(404);

    // The trail names who did each of it.
    const trail = (await html(owner, `/app/workspaces/${team}/audit`)).html;
    const rows = [...trail.matchAll(/<tr><td data-label="When">[\s\S]*?<\/tr>/g)].map((m) => m[0]);
    const row = (action: string, text: string) => rows.find((r) => r.includes(`>${action}<`) && r.includes(text));
    expect(row("member removed", viewer.email)).toContain(`data-label="Who">${admin.email}<`);
    expect(row("member role changed", "from: editor")).toContain("to: viewer");
    expect(row("member added", `email: ${viewer.email}`)).toContain(`data-label="Who">${admin.email}<`);
    expect(row("member added", `email: ${admin.email}`)).toContain(`data-label="Who">${owner.email}<`);
    expect(row("workspace created", "name: Support")).toBeDefined();
    expect(trail).toContain('<a href="/app/audit">Tool calls</a>');
    // A non-member never reads it.
    expect((await html(viewer, `/app/workspaces/${team}/audit`)).status).toBe(404);
  });
});
