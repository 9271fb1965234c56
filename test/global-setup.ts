import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { startMcpProxy } from "./fakes/mcp-proxy.mjs";
import { startPlatformFake } from "./fakes/platform-fake.mjs";
import { startRateLimitedApi } from "./fakes/rate-limited-api.mjs";
import { startOAuthProvider } from "./fakes/oauth-provider.mjs";
import { startMcpOAuthServer } from "./fakes/mcp-oauth-server.mjs";

const root = path.resolve(import.meta.dirname, "..");

/**
 * Starts the servers the Workers tests talk to over loopback: the reference MCP server
 * (@modelcontextprotocol/server-everything, streamable HTTP), a recording proxy in front of it, and
 * the fake platform APIs.
 * Ports come from vitest.config.ts through the environment.
 */
export default async function setup() {
  // Both Workers projects name this file; the servers start once, and stop after the last.
  const shared = globalThis as { hubFakes?: { users: number; started: Promise<() => Promise<void>> } };
  shared.hubFakes ??= { users: 0, started: startAll() };
  shared.hubFakes.users++;
  const stop = await shared.hubFakes.started;
  return async () => {
    if (--shared.hubFakes!.users === 0) await stop();
  };
}

async function startAll() {
  const fake = await startPlatformFake(Number(process.env.TEST_FAKE_PORT));
  const limited = await startRateLimitedApi(Number(process.env.TEST_RATE_LIMITED_PORT));
  const oauthProvider = await startOAuthProvider(Number(process.env.TEST_OAUTH_PORT));
  const mcpOAuth = await startMcpOAuthServer(Number(process.env.TEST_MCP_OAUTH_PORT));
  // The same server in both transports: streamable HTTP, and the older HTTP+SSE for the fallback.
  const servers = [startEverything("streamableHttp", Number(process.env.TEST_MCP_PORT)), startEverything("sse", Number(process.env.TEST_MCP_SSE_PORT))];
  await Promise.all(servers.map(({ child, port }) => waitForMcp(child, port)));
  const proxy = await startMcpProxy(Number(process.env.TEST_MCP_PROXY_PORT), `http://127.0.0.1:${process.env.TEST_MCP_PORT}/mcp`);
  return async () => {
    await proxy.close();
    for (const { child } of servers) child.kill("SIGTERM");
    await fake.close();
    await limited.close();
    await oauthProvider.close();
    await mcpOAuth.close();
  };
}

function startEverything(transport: "streamableHttp" | "sse", port: number) {
  const child = spawn(
    process.execPath,
    [
      "--import",
      path.join(root, "test/fakes/bind-loopback.mjs"),
      path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
      transport,
    ],
    { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] },
  );
  return { child, port };
}

async function waitForMcp(child: ChildProcess, port: number) {
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server-everything exited: ${output}`);
    if (await accepts(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`server-everything did not start on port ${port}: ${output}`);
}

/** Whether something accepts TCP connections on the loopback port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
