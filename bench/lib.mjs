// Helpers shared by the benchmarks: ports, percentiles, and a hub started for measuring.
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { startHub } from "../scripts/start.mjs";

export const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

export const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
};
export const median = (xs) => percentile(xs, 0.5);

/** A fresh hub with limits out of the way (the benchmarks measure latency, not refusals) and a signed-in key. */
export async function benchHub({ inspectorPort } = {}) {
  const state = mkdtempSync(path.join(os.tmpdir(), "hub-bench-"));
  const hub = await startHub({
    port: await freePort(),
    persistTo: state,
    stdio: "pipe",
    bootstrap: false,
    inspectorPort,
    vars: { REQUEST_RATE_LIMIT_PER_MINUTE: "1000000", USER_RATE_LIMIT_PER_MINUTE: "1000000", TOOL_RATE_LIMIT_PER_MINUTE: "1000000" },
  });
  const post = (p, body, token) =>
    fetch(`${hub.origin}${p}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const registered = await (await post("/v1/auth/register", { email: "bench@example.com", password: "benchmark password" })).json();
  const { key } = await (await post("/v1/auth/api-keys", { name: "bench" }, registered.access_token)).json();
  return {
    hub,
    key,
    post: (p, body) => post(p, body, key),
    get: (p) => fetch(`${hub.origin}${p}`, { headers: { Authorization: `Bearer ${key}` } }),
    stop: async () => {
      await hub.stop();
      rmSync(state, { recursive: true, force: true });
    },
  };
}
