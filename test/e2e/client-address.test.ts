import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHub } from "../../scripts/start.mjs";
import { freePort } from "../../scripts/free-port.mjs";

/**
 * A hub that is not behind Cloudflare (here: `wrangler dev`, as `npm start` runs it) must not let
 * a caller dodge the sign-in limit by sending a new CF-Connecting-IP with every attempt.
 */
const AUTH_LIMIT = 5;
let hub: { origin: string; stop: () => Promise<void> } | undefined;
let stateDir = "";

beforeAll(async () => {
  stateDir = mkdtempSync(path.join(os.tmpdir(), "hub-address-"));
  hub = await startHub({
    port: await freePort(),
    persistTo: stateDir,
    stdio: "pipe",
    bootstrap: false,
    tick: false,
    vars: { AUTH_RATE_LIMIT_PER_MINUTE: String(AUTH_LIMIT) },
  });
}, 120_000);

afterAll(async () => {
  await hub?.stop();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

describe("per-address limits on a hub not behind Cloudflare", () => {
  it("count every sign-in attempt, whatever CF-Connecting-IP the caller sends", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < AUTH_LIMIT + 3; i++) {
      const response = await fetch(`${hub!.origin}/v1/auth/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "CF-Connecting-IP": `198.51.100.${i + 1}` },
        body: JSON.stringify({ email: "nobody@example.com", password: `guess number ${i}` }),
      });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses.slice(0, AUTH_LIMIT)).toEqual(Array(AUTH_LIMIT).fill(401));
    expect(statuses.slice(AUTH_LIMIT)).toEqual([429, 429, 429]);
  });
});
