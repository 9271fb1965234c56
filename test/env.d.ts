// Types of the test runtime: the Worker's bindings plus the test-only migrations binding, and the
// main module's exports (for `exports.default.fetch`).
type HubWorkerEnv = import("../src/env").Env;
type HubMainModule = typeof import("../src/index");

declare namespace Cloudflare {
  interface Env extends HubWorkerEnv {
    // Declared again: the generated base types the queue without its message type.
    WORKFLOW_RUNS: HubWorkerEnv["WORKFLOW_RUNS"];
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** The reference MCP server (server-everything) on loopback. */
    TEST_MCP_URL: string;
    /** The same server speaking the older HTTP+SSE transport. */
    TEST_MCP_SSE_URL: string;
    /** A recording proxy in front of the reference MCP server (test/fakes/mcp-proxy.mjs). */
    TEST_MCP_PROXY_URL: string;
    /** The fake platform APIs on loopback (test/fakes/platform-fake.mjs). */
    TEST_FAKE_URL: string;
    /** A fake OAuth provider and the API it protects (test/fakes/oauth-provider.mjs). */
    TEST_OAUTH_URL: string;
    /** An MCP server behind OAuth, built with the SDK's server-side auth (test/fakes/mcp-oauth-server.mjs). */
    TEST_MCP_OAUTH_URL: string;
  }
  interface GlobalProps {
    mainModule: HubMainModule;
  }
}
