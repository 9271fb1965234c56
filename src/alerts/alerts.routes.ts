import { authedRoute, createRouter } from "../http/router";
import { AlertsChange, AlertsSchema, DEFAULT_MIN_INTERVAL_SECONDS } from "./schemas";
import { deleteAlerts, readAlerts, writeAlerts } from "./settings";

const ALERTS_DOC = `Messages to Slack, email or a signed webhook (channels as for approvals) when a run fails, an agent is stopped, a connection expires or a budget stops a model request. Each channel gets at most one message per \`min_interval_seconds\` (default ${DEFAULT_MIN_INTERVAL_SECONDS}), a digest of what happened since its last one; a failed send is tried again at the next minute's sweep. See docs/production.md.`;

const read = authedRoute("data:read", {
  method: "get",
  path: "/me/alerts",
  tags: ["Account"],
  summary: "The account's alerts",
  description: ALERTS_DOC,
  responses: { 200: { description: "The alerts and each channel's delivery state", content: { "application/json": { schema: AlertsSchema } } } },
});

const write = authedRoute(
  "data:write",
  {
    method: "put",
    path: "/me/alerts",
    tags: ["Account"],
    summary: "Set the account's alerts",
    description: `${ALERTS_DOC} An empty \`on\` turns them off. The webhook signing secret is answered once, by the first PUT (or one with \`rotate_signing_secret\`).`,
    request: { body: { required: true, content: { "application/json": { schema: AlertsChange } } } },
    responses: { 200: { description: "The alerts as stored", content: { "application/json": { schema: AlertsSchema } } } },
  },
  { role: "admin" },
);

const remove = authedRoute(
  "data:write",
  {
    method: "delete",
    path: "/me/alerts",
    tags: ["Account"],
    summary: "Turn alerts off and forget them",
    description: "Removes the alerts, their channels, what was waiting to be sent and the signing secret. Answers 204 whether or not any were set.",
    responses: { 204: { description: "Removed" } },
  },
  { role: "admin" },
);

export const alertRoutes = createRouter()
  .openapi(read, async (c) => c.json(await readAlerts(c.var.ctx), 200))
  .openapi(write, async (c) => c.json(await writeAlerts(c.var.ctx, c.req.valid("json")), 200))
  .openapi(remove, async (c) => {
    await deleteAlerts(c.var.ctx);
    return c.body(null, 204);
  });
