import { describe, expect, it } from "vitest";
import { Browser, newEmail } from "./browser";

describe("the dashboard's limits", () => {
  it("counts a session's forms against the API's per-credential limit and answers 429 with Retry-After", async () => {
    const browser = new Browser();
    await browser.register(newEmail());
    const csrf = await browser.csrf("/app/keys");
    // The test deployment allows 120 requests a minute per credential; a window rolling over
    // mid-loop at most doubles what it takes, hence the generous bound.
    let refused: Response | undefined;
    let sent = 0;
    while (!refused && sent < 300) {
      const response = await browser.request("/app/keys", { form: { step: "nothing", csrf_token: csrf } });
      sent++;
      if (response.status === 429) refused = response;
      else expect(response.status).toBe(400);
    }
    expect(refused, `no 429 after ${sent} forms`).toBeDefined();
    expect(sent).toBeGreaterThan(100);
    expect(Number(refused!.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await refused!.text()).toContain("Too many requests");
  });
});

describe("the dashboard's limits on pages", () => {
  it("counts every signed-in page view (GET) against the same limit, answering the 429 page with Retry-After", async () => {
    const browser = new Browser();
    await browser.register(newEmail());
    // Pages of several sections, each through the shared signed-in helpers.
    const pages = ["/app/keys", "/app/templates", "/app/conversations", "/app/workflows", "/"];
    let refused: Response | undefined;
    let sent = 0;
    while (!refused && sent < 300) {
      const response = await browser.request(pages[sent % pages.length]!);
      sent++;
      if (response.status === 429) refused = response;
      else expect(response.status).toBe(200);
    }
    expect(refused, `no 429 after ${sent} page views`).toBeDefined();
    expect(sent).toBeGreaterThan(100);
    expect(Number(refused!.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(refused!.headers.get("Content-Type")).toContain("text/html");
    expect(await refused!.text()).toContain("Too many requests");
    // The live-events stream of the chat page is refused too.
    expect((await browser.request("/app/conversations/1/events")).status).toBe(429);
  });
});
