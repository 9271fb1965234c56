import { createApp } from "./app";
import type { Env } from "./env";
import { runtimeFor } from "./core/context";
import type { WorkflowRunMessage } from "./core/messages";
import { removeExpiredCredentials } from "./scheduled/housekeeping";
import { forgetOldAuditRecords } from "./workspaces/audit";
import { removeUnusedClients } from "./auth/client-registration";
import { forgetOldExecutionKeys, forgetOldFlowWindows, resumeStaleExecutions } from "./executions/sweep";
import { resumeDueNotifications } from "./executions/notifications";
import { sweepExpiredRuns } from "./executions/retention";
import { forgetOldDeliveries } from "./agents/hub-scheme";
import { forgetOldAgentEvents } from "./agents/events";
import { sweepOverdueAgents } from "./agents/firing";
import { sweepOverduePolls } from "./agents/poll-backstop";
import { consumeWorkflowRuns } from "./executions/consumer";
import { forgetOldAuthorizations } from "./connections/oauth-flow";
import { sendDueAlerts } from "./alerts/deliver";

export { ConversationObject } from "./conversations/conversation-object";
export { AutomationAgent } from "./agents/automation-agent";
export { RateLimiter } from "./http/rate-limiter";
export { McpSession } from "./connections/mcp-session";
export { ConnectionTokens } from "./connections/oauth/connection-tokens";
export { ConnectionGovernor } from "./connections/governor/connection-governor";

const app = createApp();

/**
 * The entry points. Each builds the runtime (storage, parsed config, secrets, bindings) once per
 * request, queue message or cron tick, and hands it down: nothing below reads `env` itself.
 */
export default {
  fetch: app.fetch,
  queue: (batch, env, ctx) => consumeWorkflowRuns(batch, (messageId) => runtimeFor(env, { requestId: messageId, waitUntil: (work) => ctx.waitUntil(work) })),
  async scheduled(controller, env, ctx) {
    const runtime = runtimeFor(env, { requestId: `cron-${controller.scheduledTime}`, waitUntil: (work) => ctx.waitUntil(work) });
    ctx.waitUntil(
      Promise.all([
        removeExpiredCredentials(runtime.db),
        removeUnusedClients(runtime.db),
        resumeStaleExecutions(runtime),
        resumeDueNotifications(runtime),
        forgetOldExecutionKeys(runtime.db),
        forgetOldFlowWindows(runtime.db),
        sweepExpiredRuns(runtime),
        forgetOldDeliveries(runtime.db),
        forgetOldAgentEvents(runtime.db),
        sweepOverdueAgents(runtime),
        sweepOverduePolls(runtime),
        forgetOldAuthorizations(runtime.db),
        sendDueAlerts(runtime),
        forgetOldAuditRecords(runtime.db),
      ]).then(() => undefined),
    );
  },
} satisfies ExportedHandler<Env, WorkflowRunMessage>;
