import { z } from "@hono/zod-openapi";
import { authedRoute, createRouter, notFoundError } from "../http/router";
import { Timestamp } from "../http/schemas";
import { ScheduleConfigSchema } from "../workflows/triggers";
import { preferredWait } from "../http/prefer";
import { REPLAYED_HEADER, readIdempotencyKey } from "../http/idempotency";
import { presentExecution } from "../executions/present";
import { MAX_WAIT_SECONDS } from "../executions/run-now";
import { skippedOrThrow } from "../executions/flow-control";
import { ExecutionSchema, PreferHeader } from "../workflows/schemas";
import {
  deployAgent,
  listAgents,
  presentAgent,
  presentOwnedAgent,
  removeAgent,
  runAgentNow,
  scheduleAgent,
  setAgentStatus,
  updateAgentConfig,
} from "./service";
import { JsonObject } from "../http/schemas";
import { AgentBudgetSchema } from "../usage/schemas";

export const AgentSchema = z
  .object({
    agent_id: z.string().openapi({ format: "uuid" }),
    workflow_id: z.number().int(),
    workflow_name: z.string(),
    status: z.enum(["active", "paused"]),
    trigger_type: z.string().openapi({ description: "The workflow's trigger type when deployed or re-armed; `schedule` once scheduled by hand." }),
    trigger: z
      .object({
        type: z.string(),
        verify: z
          .string()
          .optional()
          .openapi({ description: "Webhook triggers: how event calls are verified (`hub`: X-Hub-Signature; a provider's scheme; `token`)." }),
        event_types: z.array(z.string()).optional(),
        webhook_url: z.string().optional().openapi({ description: "Webhook triggers: where events are sent (POST)." }),
        interval_seconds: z.number().int().optional(),
        last_event_at: Timestamp.nullable().openapi({ description: "When a delivery or poll last reached the agent (see /events)." }),
        next_poll_at: Timestamp.nullable().optional().openapi({ description: "Poll triggers: when the next poll is due (null while paused)." }),
      })
      .openapi({ description: "The agent's trigger as armed, never a secret." }),
    schedule: JsonObject.nullable(),
    agent_config: JsonObject,
    monitoring: z.object({
      execution_count: z.number().int(),
      success_count: z.number().int().openapi({
        description: "Runs that succeeded; for an agent with `agent_config.goal`, runs whose verdict is `goal_met` (successful goal completions).",
      }),
      failure_count: z.number().int().openapi({ description: "Runs that failed." }),
      success_rate: z.number().openapi({ description: "success_count as a percentage (0–100) of execution_count." }),
      last_error: z.string().nullable(),
      last_run_at: Timestamp.nullable(),
      next_run_at: Timestamp.nullable(),
    }),
    performance_metrics: z.object({
      average_duration_ms: z.number().nullable(),
      last_duration_ms: z.number().nullable(),
      // From the agent's finished runs of the last 30 days; on GET /v1/agents/{agent_id} only.
      window_days: z.number().int().optional(),
      runs_in_window: z.number().int().optional(),
      p50_duration_ms: z.number().nullable().optional(),
      p95_duration_ms: z.number().nullable().optional(),
      runs_per_day: z.number().optional().openapi({ description: "Average over the last 7 days." }),
      tokens_used: z.number().int().optional(),
      average_tokens_per_run: z.number().nullable().optional(),
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("Agent");

/** What an agent may set for its runs; other keys are kept as given (notes, descriptions). */
export const AgentConfig = z
  .object({
    instructions: z
      .string()
      .max(10_000)
      .optional()
      .openapi({ description: "Come before the system prompt of the agent's llm steps, and after the hub's in its conversations' chat turns." }),
    provider: z
      .string()
      .max(50)
      .optional()
      .openapi({ description: "The model provider of the agent's llm steps that name none, and of its chat turns (unless a message names one)." }),
    model: z.string().max(200).optional().openapi({ description: "The model of those steps (with the agent's provider)." }),
    tools: z.array(z.string().min(1).max(200)).max(200).optional().openapi({
      description:
        "The only tools the agent's chat turns may call: others are not offered to the model, and a call to one is answered with an error the model sees (never run). Each must name a tool of your catalog (422 otherwise). Its llm steps offer no tools. Absent: every tool.",
    }),
    memory: z.boolean().optional().openapi({
      description:
        "`true`: the agent's chat turns and `agent` steps get the tools `memory_save` and `memory_search`, and the three memories that best match a new message come with it (GET /v1/agents/{agent_id}/memories lists them). At most 10,000 memories of 2,000 characters per agent.",
    }),
    budget: AgentBudgetSchema.optional(),
    goal: z
      .object({
        description: z.string(),
        success: z.object({ tools_called: z.array(z.string()).optional(), output_schema: JsonObject.optional(), judge: z.boolean().optional() }).passthrough(),
      })
      .passthrough()
      .optional()
      .openapi({
        description:
          "What each run should achieve: after a run ends it gets `verdict` `goal_met` when it succeeded, called every tool of `success.tools_called` successfully, its final output matches `success.output_schema` and, with `success.judge`, the agent's model answers that it achieved `description`; `monitoring.success_count` counts those runs.",
      }),
  })
  .catchall(z.unknown())
  .openapi("AgentConfig");

const AgentId = z.object({
  agent_id: z
    .string()
    .uuid()
    .openapi({ param: { name: "agent_id", in: "path" } }),
});

const deploy = authedRoute(["data:write", "workflow:execute"], {
  method: "post",
  path: "/agents/deploy",
  tags: ["Agents"],
  summary: "Deploy a workflow as an agent",
  description:
    "The workflow must be yours. Its trigger is armed in the same call: a `schedule` trigger sets `schedule` and `monitoring.next_run_at` (an explicit `POST /v1/agents/schedule` still overrides, until the workflow's trigger changes). A `poll` trigger starts polling (the first poll remembers what is there). The answer carries `webhook_secret` once: it signs event calls to the agent.",
  request: {
    body: {
      required: true,
      content: { "application/json": { schema: z.object({ workflow_id: z.number().int().positive(), agent_config: AgentConfig.nullish() }) } },
    },
  },
  responses: {
    201: {
      description: "Deployed",
      content: { "application/json": { schema: AgentSchema.extend({ webhook_secret: z.string().openapi({ description: "Shown only here." }) }) } },
    },
    ...notFoundError,
  },
});

const list = authedRoute("data:read", {
  method: "get",
  path: "/agents",
  tags: ["Agents"],
  summary: "List agents",
  responses: { 200: { description: "Agents", content: { "application/json": { schema: z.array(AgentSchema) } } } },
});

const get = authedRoute("data:read", {
  method: "get",
  path: "/agents/{agent_id}",
  tags: ["Agents"],
  summary: "Agent details and health",
  request: { params: AgentId },
  responses: { 200: { description: "The agent with its monitoring", content: { "application/json": { schema: AgentSchema } } }, ...notFoundError },
});

const execute = authedRoute("workflow:execute", {
  method: "post",
  path: "/agents/{agent_id}/execute",
  tags: ["Agents"],
  summary: "Run an agent now",
  description:
    "The body (any JSON object) becomes the run's `input_data`. Answers 202 with the execution to follow; with `Prefer: wait=<seconds>` (at most 60), 200 with the finished execution if it ends in time. An `Idempotency-Key` header makes a retry within 24 h answer with the run the key started (`Idempotent-Replayed: true`) instead of starting another.",
  request: { params: AgentId, headers: PreferHeader, body: { required: false, content: { "application/json": { schema: JsonObject } } } },
  responses: {
    200: { description: "Finished within the wait asked for", content: { "application/json": { schema: ExecutionSchema } } },
    202: {
      description: "Queued, or skipped by the workflow's rate_limit",
      content: {
        "application/json": {
          schema: z.union([
            z.object({ execution_id: z.string(), status: z.literal("queued") }),
            z.object({ status: z.literal("skipped"), reason: z.literal("rate_limited") }),
          ]),
        },
      },
    },
    ...notFoundError,
  },
});

const statusRoute = (action: "pause" | "resume") =>
  // Resuming lets the agent act again with its credential, so it needs the right to run work.
  authedRoute(action === "resume" ? ["data:write", "workflow:execute"] : "data:write", {
    method: "post",
    path: `/agents/{agent_id}/${action}`,
    tags: ["Agents"],
    summary: action === "pause" ? "Pause an agent (no runs from events or schedules)" : "Resume a paused agent",
    description: action === "pause" ? "Its schedule is kept but disarmed (`next_run_at` null)." : "Its schedule, if any, is armed again from now.",
    request: { params: AgentId },
    responses: { 200: { description: "The agent", content: { "application/json": { schema: AgentSchema } } }, ...notFoundError },
  });
const pause = statusRoute("pause");
const resume = statusRoute("resume");

const update = authedRoute(["data:write", "workflow:execute"], {
  method: "patch",
  path: "/agents/{agent_id}",
  tags: ["Agents"],
  summary: "Change an agent's agent_config",
  description:
    "Replaces `agent_config` when given (checked as at deploy: an unknown tool in `tools` is a 422 and nothing changes); absent, nothing changes. The agent's next runs and the next turns of its conversations use it.",
  request: { params: AgentId, body: { required: true, content: { "application/json": { schema: z.object({ agent_config: AgentConfig.optional() }) } } } },
  responses: { 200: { description: "The agent", content: { "application/json": { schema: AgentSchema } } }, ...notFoundError },
});

const remove = authedRoute("data:write", {
  method: "delete",
  path: "/agents/{agent_id}",
  tags: ["Agents"],
  summary: "Delete an agent",
  description: "The workflow and past executions stay.",
  request: { params: AgentId },
  responses: { 204: { description: "Deleted" }, ...notFoundError },
});

const schedule = authedRoute(["data:write", "workflow:execute"], {
  method: "post",
  path: "/agents/schedule",
  tags: ["Agents"],
  summary: "Schedule an agent",
  description:
    'Replaces the agent\'s schedule: `{type: "cron", cron_expression, timezone?}` (standard 5 fields, read in the IANA time zone, default UTC; an expression no date matches, such as `0 0 31 2 *`, is refused with 422 and the current schedule stays) or `{type: "interval", interval_seconds}`. Scheduling is idempotent: the agent\'s Durable Object keeps exactly one schedule, whatever restarts or repeated calls happen.',
  request: {
    body: { required: true, content: { "application/json": { schema: z.object({ agent_id: z.string().uuid(), schedule_config: ScheduleConfigSchema }) } } },
  },
  responses: { 200: { description: "The scheduled agent", content: { "application/json": { schema: AgentSchema } } }, ...notFoundError },
});

const unschedule = authedRoute("data:write", {
  method: "delete",
  path: "/agents/{agent_id}/schedule",
  tags: ["Agents"],
  summary: "Remove an agent's schedule",
  request: { params: AgentId },
  responses: {
    200: { description: "The agent, now run manually or by events only", content: { "application/json": { schema: AgentSchema } } },
    ...notFoundError,
  },
});

export const agentRoutes = createRouter()
  .openapi(schedule, async (c) => {
    const { agent_id, schedule_config } = c.req.valid("json");
    const config =
      schedule_config.type === "cron"
        ? { type: "cron" as const, cron_expression: schedule_config.cron_expression.trim(), timezone: schedule_config.timezone }
        : schedule_config;
    const updated = await scheduleAgent(c.var.ctx, agent_id, config);
    return c.json(await presentOwnedAgent(c.var.ctx, updated.id, new URL(c.req.url).origin), 200);
  })
  .openapi(unschedule, async (c) => {
    const updated = await scheduleAgent(c.var.ctx, c.req.valid("param").agent_id, null);
    return c.json(await presentOwnedAgent(c.var.ctx, updated.id, new URL(c.req.url).origin), 200);
  })
  .openapi(pause, async (c) => {
    const agent = await setAgentStatus(c.var.ctx, c.req.valid("param").agent_id, "paused");
    return c.json(await presentOwnedAgent(c.var.ctx, agent.id, new URL(c.req.url).origin), 200);
  })
  .openapi(resume, async (c) => {
    const agent = await setAgentStatus(c.var.ctx, c.req.valid("param").agent_id, "active");
    return c.json(await presentOwnedAgent(c.var.ctx, agent.id, new URL(c.req.url).origin), 200);
  })
  .openapi(update, async (c) => {
    const { agent_id } = c.req.valid("param");
    const config = c.req.valid("json").agent_config;
    if (config) await updateAgentConfig(c.var.ctx, agent_id, config);
    return c.json(await presentOwnedAgent(c.var.ctx, agent_id, new URL(c.req.url).origin), 200);
  })
  .openapi(remove, async (c) => {
    await removeAgent(c.var.ctx, c.req.valid("param").agent_id);
    return c.body(null, 204);
  })
  .openapi(deploy, async (c) => {
    const body = c.req.valid("json");
    const { agent, webhookSecret } = await deployAgent(c.var.ctx, { workflowId: body.workflow_id, config: body.agent_config ?? {} });
    c.header("Cache-Control", "no-store");
    return c.json({ ...(await presentOwnedAgent(c.var.ctx, agent.id, new URL(c.req.url).origin)), webhook_secret: webhookSecret }, 201);
  })
  .openapi(list, async (c) => {
    const rows = await listAgents(c.var.ctx);
    return c.json(
      rows.map((row) => presentAgent(row.agent, row.workflowName, row.triggerConfig, new URL(c.req.url).origin)),
      200,
    );
  })
  .openapi(get, async (c) => c.json(await presentOwnedAgent(c.var.ctx, c.req.valid("param").agent_id, new URL(c.req.url).origin), 200))
  .openapi(execute, async (c) => {
    // The body is optional and, when sent, validated as a JSON object by the route's schema.
    const input = (c.req.valid("json") as Record<string, unknown> | undefined) ?? {};
    const waitSeconds = preferredWait(c.req.header("Prefer"), MAX_WAIT_SECONDS);
    const agentId = c.req.valid("param").agent_id;
    const idempotency = await readIdempotencyKey(c.req.header("Idempotency-Key"), { agent_id: agentId, input });
    const started = await runAgentNow(c.var.ctx, agentId, input, { waitSeconds, idempotency }).catch(skippedOrThrow);
    if (!started) return c.json({ status: "skipped" as const, reason: "rate_limited" as const }, 202);
    const { execution, finished, replayed } = started;
    if (waitSeconds !== undefined) c.header("Preference-Applied", `wait=${waitSeconds}`);
    if (replayed) c.header(REPLAYED_HEADER, "true");
    if (finished) return c.json(await presentExecution(c.var.ctx.db, finished.execution, true, finished.steps), 200);
    return c.json({ execution_id: execution.id, status: "queued" as const }, 202);
  });
