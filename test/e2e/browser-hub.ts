// A real hub (`wrangler dev` on a throwaway state directory) and Debian's Chromium, for the
// dashboard's browser tests. The hub's last output is kept for failure messages.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { startHub } from "../../scripts/start.mjs";
import { freePort } from "../../scripts/free-port.mjs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export async function startBrowserHub(name: string, screenshots: string) {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), `hub-${name}-`));
  const hub = await startHub({ port: await freePort(), persistTo: stateDir, stdio: "pipe", bootstrap: false });
  let log = "";
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-20_000);
  };
  hub.child.stdout?.on("data", keep);
  hub.child.stderr?.on("data", keep);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"] });
  mkdirSync(screenshots, { recursive: true });
  return {
    hub,
    browser,
    /** The end of the hub's output, for a failure message. */
    log: (chars = 2000) => log.slice(-chars),
    async stop() {
      await browser.close();
      await hub.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
