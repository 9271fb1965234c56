import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { freePort } from "./scripts/free-port.mjs";

// The suite that runs inside the Workers runtime (workerd, real D1, Durable Objects, Queues), in
// two projects (one shared runtime, and one per file for the few that read the whole database),
// and end-to-end tests that start `wrangler dev` and drive a real browser.

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  process.env.TEST_MCP_PORT ??= String(await freePort());
  process.env.TEST_FAKE_PORT ??= String(await freePort());
  process.env.TEST_MCP_SSE_PORT ??= String(await freePort());
  process.env.TEST_MCP_PROXY_PORT ??= String(await freePort());
  process.env.TEST_RATE_LIMITED_PORT ??= String(await freePort());
  process.env.TEST_OAUTH_PORT ??= String(await freePort());
  process.env.TEST_MCP_OAUTH_PORT ??= String(await freePort());
  // One runtime for most files: starting workerd for each of 200+ files cost more than the tests
  // themselves. Files never share an account (each test makes its own), so they do not see each
  // other's rows, except the few that read the whole database: those sweep every stale run, fire
  // every due schedule or list the whole template catalog, and keep a runtime of their own.
  const wholeDatabase = [
    "test/agents/triggers.test.ts",
    "test/agents/schedules.test.ts",
    "test/agents/webhook-replays.test.ts",
    "test/alerts/alerts.test.ts",
    "test/http/background.test.ts",
    "test/executions/code-step.test.ts",
    "test/executions/control.test.ts",
    "test/executions/crash-safety.test.ts",
    "test/executions/idempotency-key.test.ts",
    "test/executions/retention.test.ts",
    "test/executions/settings.test.ts",
    "test/executions/step-types.test.ts",
    "test/executions/wait-for-event.test.ts",
    "test/templates/*.test.ts",
  ];
  const workersProject = (name: string, files: { include: string[]; exclude: string[]; isolate: boolean }) => ({
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
      name,
      include: files.include,
      exclude: files.exclude,
      isolate: files.isolate,
      setupFiles: ["./test/helpers/apply-migrations.ts"],
      globalSetup: ["./test/global-setup.ts"],
    },
  });
  return {
    test: {
      reporters: ["default", "./test/summary-reporter.ts"],
      projects: [
        workersProject("workers", { include: ["test/**/*.test.ts"], exclude: ["test/e2e/**", ...wholeDatabase], isolate: false }),
        workersProject("workers-isolated", { include: wholeDatabase, exclude: [], isolate: true }),
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
