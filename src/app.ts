import { cors } from "hono/cors";
import { accountRoutes, publicAccountRoutes } from "./auth/accounts.routes";
import { apiKeyRoutes } from "./auth/api-keys.routes";
import { authenticate } from "./auth/authenticate";
import { authorizePage } from "./auth/authorize/authorize.routes";
import { oauthMetadata } from "./auth/metadata";
import { oauthAppRoutes } from "./auth/oauth-apps.routes";
import { authorizationRoutes } from "./auth/authorizations.routes";
import { tokenEndpoint } from "./auth/token-endpoint";
import { clientRegistration, describeClientRegistration } from "./auth/client-registration.routes";
import { describeTokenEndpoint } from "./auth/token-endpoint.openapi";
import { createDocsPage } from "./docs/docs.routes";
import { HubError } from "./core/errors";
import { initRequest, limitNesting, requireJsonBody } from "./http/middleware";
import { limitBodyOrDocument } from "./connections/custom/body-limit";
import { customPlatformRoutes } from "./connections/custom/platforms.routes";
import { registerOpenApi } from "./http/openapi-document";
import { problemResponse, toHubError } from "./http/problem";
import { perCredentialLimit } from "./http/rate-limit";
import { createRouter } from "./http/router";
import { meRoutes } from "./me/me.routes";
import { connectionRoutes } from "./connections/connections.routes";
import { toolRoutes } from "./tools/tools.routes";
import { conversationRoutes } from "./conversations/conversations.routes";
import { chatRoutes } from "./conversations/chat.routes";
import { workflowRoutes } from "./workflows/workflows.routes";
import { portabilityRoutes } from "./portability/portability.routes";
import { versionRoutes } from "./workflows/versions.routes";
import { builderRoutes } from "./workflows/builder.routes";
import { testStepRoutes } from "./executions/test-step.routes";
import { executionRoutes } from "./executions/executions.routes";
import { rerunRoutes } from "./executions/reruns.routes";
import { testRunRoutes } from "./executions/test-run.routes";
import { runRoutes } from "./executions/runs.routes";
import { agentRoutes } from "./agents/agents.routes";
import { agentTriggerRoutes } from "./agents/trigger.routes";
import { chatAgentRoutes } from "./agents/chat-agent.routes";
import { memoryRoutes } from "./memories/memories.routes";
import { evalRoutes } from "./evals/evals.routes";
import { approvalRoutes } from "./approvals/approvals.routes";
import { describeSlackInteractions, slackInteractions } from "./agents/approval-clicks.routes";
import { approvalLinkPages } from "./dashboard/approval-link/approval-link.routes";
import { toolPolicyRoutes } from "./governance/policies.routes";
import { usageRoutes } from "./usage/usage.routes";
import { budgetRoutes } from "./usage/budget.routes";
import { alertRoutes } from "./alerts/alerts.routes";
import { templateRoutes } from "./templates/templates.routes";
import { traceRoutes } from "./traces/traces.routes";
import { workspaceRoutes } from "./workspaces/workspaces.routes";
import { agentWebhooks, describeAgentWebhook } from "./agents/webhooks";
import { dashboardPages } from "./dashboard/account/account.routes";
import { appsPages } from "./dashboard/account/apps.routes";
import { connectionsPages } from "./dashboard/connections/connections.routes";
import { toolsPages } from "./dashboard/tools/tools.routes";
import { conversationsPages } from "./dashboard/chat/conversations.routes";
import { workflowsPages } from "./dashboard/workflows/workflows.routes";
import { workflowTransferPages } from "./dashboard/workflows/workflow-transfer.routes";
import { dashboardRoot, renderPageNotFound, wantsPage } from "./dashboard/not-found";
import { agentsPages } from "./dashboard/agents/agents.routes";
import { approvalsPages } from "./dashboard/approvals/approvals.routes";
import { runsPages } from "./dashboard/runs/runs.routes";
import { templatesPages } from "./dashboard/templates/templates.routes";
import { auditPages } from "./dashboard/audit/audit.routes";
import { usagePages } from "./dashboard/usage/usage.routes";
import { tracesPages } from "./dashboard/traces/traces.routes";
import { platformsPages } from "./dashboard/platforms/platforms.routes";
import { workspacesPages } from "./dashboard/workspaces/workspaces.routes";
import { PageRefused } from "./dashboard/kit";
import { mcpRoutes, protectedResourceMetadata } from "./mcp-server/mcp.routes";
import { onTriggerChange } from "./workflows/service";
import { rearmWorkflowAgents } from "./agents/triggers";

// Workflows cannot import agents (agents import workflows): the app wires the agents' re-arming
// into the workflow service, so a changed trigger re-arms its agents from every door.
onTriggerChange(rearmWorkflowAgents);

/**
 * Builds the whole application. Order matters: public /v1 routes (token, register, login, the
 * OpenAPI document) are mounted before the authenticated group, whose middleware then guards
 * every other /v1 path, unknown ones too.
 */
export function createApp() {
  const app = createRouter();

  app.use("*", initRequest);
  // A dashboard page refused for the person's limits is answered with its own page.
  app.onError((error, c) => (error instanceof PageRefused ? error.response : problemResponse(c, toHubError(error, c.get("requestId")))));
  // A browser asking for a dashboard address that does not exist gets a page with a way back; API callers a problem.
  app.notFound((c) =>
    wantsPage(c) ? renderPageNotFound(c) : problemResponse(c, new HubError("not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`)),
  );

  // Liveness for load balancers and uptime checks: no credential, no storage.
  app.get("/health", (c) => c.json({ status: "ok" }));

  // Pages a person uses in a browser.
  app.route("/", dashboardPages);
  app.route("/", dashboardRoot);
  app.route("/", appsPages);
  app.route("/", connectionsPages);
  app.route("/", toolsPages);
  app.route("/", conversationsPages);
  app.route("/", workflowTransferPages);
  app.route("/", workflowsPages);
  app.route("/", agentsPages);
  app.route("/", approvalsPages);
  app.route("/", runsPages);
  app.route("/", templatesPages);
  app.route("/", auditPages);
  app.route("/", usagePages);
  app.route("/", tracesPages);
  app.route("/", platformsPages);
  app.route("/", workspacesPages);
  app.route("/", approvalLinkPages);
  app.route("/", authorizePage);
  app.route("/", oauthMetadata);

  // The hub as an MCP server, and where MCP clients discover how to get a token for it.
  app.route("/", protectedResourceMetadata);
  app.route("/", mcpRoutes);

  // The JSON API. CORS is open: credentials travel in the Authorization header, never cookies.
  const v1 = createRouter().basePath("/v1");
  v1.use(
    "*",
    cors({
      origin: "*",
      allowHeaders: ["Authorization", "Content-Type", "X-Request-Id", "Prefer", "Idempotency-Key", "Hub-Workspace"],
      exposeHeaders: ["X-Request-Id", "RateLimit", "RateLimit-Policy", "Retry-After", "Preference-Applied", "Idempotent-Replayed"],
      maxAge: 600,
    }),
  );
  v1.use("*", limitBodyOrDocument);
  v1.route("/", tokenEndpoint);
  v1.route("/", clientRegistration);
  v1.route("/", agentWebhooks);
  v1.route("/", slackInteractions);
  v1.use("*", requireJsonBody);
  v1.route("/", publicAccountRoutes);
  const openApiDocument = registerOpenApi(v1);
  describeTokenEndpoint(v1);
  describeClientRegistration(v1);
  describeAgentWebhook(v1);
  describeSlackInteractions(v1);
  app.route("/", createDocsPage(openApiDocument));

  const authed = createRouter();
  authed.use("*", authenticate, perCredentialLimit, limitNesting);
  authed.route("/", accountRoutes);
  authed.route("/", apiKeyRoutes);
  authed.route("/", oauthAppRoutes);
  authed.route("/", authorizationRoutes);
  authed.route("/", meRoutes);
  authed.route("/", workspaceRoutes);
  authed.route("/", connectionRoutes);
  authed.route("/", customPlatformRoutes);
  authed.route("/", toolRoutes);
  authed.route("/", conversationRoutes);
  authed.route("/", chatRoutes);
  authed.route("/", builderRoutes);
  authed.route("/", testStepRoutes);
  authed.route("/", portabilityRoutes);
  authed.route("/", workflowRoutes);
  authed.route("/", versionRoutes);
  authed.route("/", executionRoutes);
  authed.route("/", rerunRoutes);
  authed.route("/", testRunRoutes);
  authed.route("/", runRoutes);
  authed.route("/", agentRoutes);
  authed.route("/", agentTriggerRoutes);
  authed.route("/", chatAgentRoutes);
  authed.route("/", memoryRoutes);
  authed.route("/", evalRoutes);
  authed.route("/", approvalRoutes);
  authed.route("/", toolPolicyRoutes);
  authed.route("/", usageRoutes);
  authed.route("/", budgetRoutes);
  authed.route("/", alertRoutes);
  authed.route("/", templateRoutes);
  authed.route("/", traceRoutes);
  v1.route("/", authed);

  app.route("/", v1);
  return app;
}

export type App = ReturnType<typeof createApp>;
