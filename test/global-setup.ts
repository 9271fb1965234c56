import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { startPlatformFake } from "./fakes/platform-fake.mjs";

const root = path.resolve(import.meta.dirname, "..");

/**
 * Starts the servers the Workers tests talk to over loopback: the reference MCP server
 * (@modelcontextprotocol/server-everything, streamable HTTP) and the fake platform APIs.
 * Ports come from vitest.config.ts through the environment.
 */
export default async function setup() {
  const mcpPort = Number(process.env.TEST_MCP_PORT);
  const fakePort = Number(process.env.TEST_FAKE_PORT);
  const mcp = spawn(
    process.execPath,
    ["--import", path.join(root, "test/fakes/bind-loopback.mjs"), path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "streamableHttp"],
    { env: { ...process.env, PORT: String(mcpPort) }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const fake = await startPlatformFake(fakePort);
  await waitForMcp(mcp, mcpPort);
  return async () => {
    mcp.kill("SIGTERM");
    await fake.close();
  };
}

async function waitForMcp(child: ChildProcess, port: number) {
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server-everything exited: ${output}`);
    try {
      // Any HTTP answer means it is listening (a GET without a session is refused with 4xx).
      await fetch(`http://127.0.0.1:${port}/mcp`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`server-everything did not start on port ${port}: ${output}`);
}
