import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { freePort } from "./scripts/free-port.mjs";

// Two projects: the suite that runs inside the Workers runtime (workerd, real D1, Durable
// Objects, Queues), and end-to-end tests that start `wrangler dev` and drive a real browser.

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  process.env.TEST_MCP_PORT ??= String(await freePort());
  process.env.TEST_FAKE_PORT ??= String(await freePort());
  process.env.TEST_MCP_SSE_PORT ??= String(await freePort());
  process.env.TEST_MCP_PROXY_PORT ??= String(await freePort());
  process.env.TEST_RATE_LIMITED_PORT ??= String(await freePort());
  process.env.TEST_OAUTH_PORT ??= String(await freePort());
  process.env.TEST_MCP_OAUTH_PORT ??= String(await freePort());
  return {
    test: {
      reporters: ["default", "./test/summary-reporter.ts"],
      projects: [
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  JWT_SECRET: "test-jwt-secret-that-is-long-enough-0123456789",
                  ENCRYPTION_KEY: "dGVzdC1lbmNyeXB0aW9uLWtleS0zMi1ieXRlcy0wMTI=",
                  ENVIRONMENT: "sandbox",
                  REQUEST_RATE_LIMIT_PER_MINUTE: "120",
                  USER_RATE_LIMIT_PER_MINUTE: "200",
                  TOOL_RATE_LIMIT_PER_MINUTE: "40",
                  // Each test client gets its own address (test/helpers/api.ts), as behind a proxy.
                  TRUST_CLIENT_IP_HEADER: "true",
                  TEST_MCP_URL: `http://127.0.0.1:${process.env.TEST_MCP_PORT}/mcp`,
                  TEST_FAKE_URL: `http://127.0.0.1:${process.env.TEST_FAKE_PORT}`,
                  TEST_MCP_SSE_URL: `http://127.0.0.1:${process.env.TEST_MCP_SSE_PORT}/sse`,
                  TEST_MCP_PROXY_URL: `http://127.0.0.1:${process.env.TEST_MCP_PROXY_PORT}`,
                  TEST_RATE_LIMITED_URL: `http://127.0.0.1:${process.env.TEST_RATE_LIMITED_PORT}`,
                  TEST_OAUTH_URL: `http://127.0.0.1:${process.env.TEST_OAUTH_PORT}`,
                  TEST_MCP_OAUTH_URL: `http://127.0.0.1:${process.env.TEST_MCP_OAUTH_PORT}/mcp`,
                },
              },
            }),
          ],
          test: {
            name: "workers",
            include: ["test/**/*.test.ts"],
            exclude: ["test/e2e/**"],
            setupFiles: ["./test/helpers/apply-migrations.ts"],
            globalSetup: ["./test/global-setup.ts"],
          },
        },
        {
          test: {
            name: "e2e",
            include: ["test/e2e/**/*.test.ts"],
            environment: "node",
            testTimeout: 60_000,
            hookTimeout: 120_000,
          },
        },
      ],
    },
  };
});
