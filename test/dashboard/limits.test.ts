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
