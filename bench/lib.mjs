// Helpers shared by the benchmarks: ports, percentiles, and a hub started for measuring.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { processesBelow, startHub } from "../scripts/start.mjs";
import { freePort } from "../scripts/free-port.mjs";

export { freePort };

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The workflow of issue #12: nine set steps and a condition (ten steps run). */
export const TEN_SET_STEPS = [
  ...Array.from({ length: 9 }, (_, i) => ({ id: `s${i}`, type: "set", values: { [`v${i}`]: i } })),
  { id: "check", type: "condition", condition: { field: "{{v8}}", operator: "equals", value: 8 }, then: [{ id: "yes", type: "set", values: { ok: true } }] },
];

/** The reference MCP server (streamable HTTP) on a free loopback port, once it accepts requests. */
export async function startEverything() {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      "--import",
      path.join(root, "test/fakes/bind-loopback.mjs"),
      path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
      "streamableHttp",
    ],
    { env: { ...process.env, PORT: String(port) }, stdio: "ignore" },
  );
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(url);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { url, stop: () => child.kill("SIGTERM") };
}

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

/**
 * The hub's Worker on the local runtime's own socket, behind the proxy that `wrangler dev` puts on
 * the public port (a second runtime process that forwards every request, kept so a reload does
 * not drop the port): requests there reach the same Worker, bindings and storage, without the
 * proxy's hop. Found among the listening loopback sockets of the runtime processes below the
 * hub's (Linux: /proc), as the one whose /health is this hub's (it carries X-Request-Id).
 * Undefined where it cannot be told.
 */
export async function workerOrigin(hub) {
  if (process.platform !== "linux") return undefined;
  const publicPort = Number(new URL(hub.origin).port);
  const listening = new Map(); // socket inode -> port, loopback only
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.trim().split("\n").slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      const [address, port] = local.split(":");
      const loopback = ["0100007F", "00000000000000000000000001000000", "0000000000000000FFFF00000100007F"].includes(address);
      if (state === "0A" && loopback) listening.set(inode, Number.parseInt(port, 16));
    }
  }
  // The listening ports of each runtime process below the hub's; the proxy's is the one holding the public port.
  const portsOf = [];
  for (const { pid } of processesBelow(hub.child.pid)) {
    let fds = [];
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "workerd") continue;
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    const ports = [];
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode && listening.has(inode)) ports.push(listening.get(inode));
      } catch {
        // closed meanwhile
      }
    }
    portsOf.push(ports);
  }
  for (const port of portsOf.filter((ports) => !ports.includes(publicPort)).flat()) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) });
      const body = await response.text();
      if (response.ok && response.headers.has("x-request-id") && body.includes('"ok"')) return `http://127.0.0.1:${port}`;
    } catch {
      // not an HTTP socket, or not answering
    }
  }
  return undefined;
}
