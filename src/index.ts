import { createApp } from "./app";
import { createDb } from "./db/client";
import type { Env } from "./env";
import { removeExpiredCredentials } from "./scheduled/housekeeping";
import { resumeStaleExecutions } from "./workflows/executions";
import { forgetOldDeliveries } from "./agents/webhooks";
import { sweepOverdueAgents } from "./agents/firing";
import { consumeWorkflowRuns } from "./workflows/queue-consumer";
import type { WorkflowRunMessage } from "./core/messages";

export { ConversationObject } from "./conversations/conversation-object";
export { AutomationAgent } from "./agents/automation-agent";
export { RateLimiter } from "./http/rate-limiter";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: (batch, env) => consumeWorkflowRuns(batch, env),
  async scheduled(_controller, env, ctx) {
    const db = createDb(env.DB);
    ctx.waitUntil(
      Promise.all([removeExpiredCredentials(db), resumeStaleExecutions(env, db), forgetOldDeliveries(db), sweepOverdueAgents(env, db)]).then(() => undefined),
    );
  },
} satisfies ExportedHandler<Env, WorkflowRunMessage>;
