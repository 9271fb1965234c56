import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// Timestamps are stored as epoch milliseconds and surface as Date objects in code.
const stampedAt = (name: string) => integer(name, { mode: "timestamp_ms" }).notNull().default(sql`(unixepoch('subsec') * 1000)`);
const createdAt = () => stampedAt("created_at");
const timestamp = (name: string) => integer(name, { mode: "timestamp_ms" });

export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  email: text("email").notNull().unique(),
  name: text("name"),
  passwordHash: text("password_hash").notNull(),
  defaultProvider: text("default_provider"),
  /** A person signs in; a workspace is an account a team shares (DESIGN §6.4), never signed in to. */
  kind: text("kind", { enum: ["person", "workspace"] })
    .notNull()
    .default("person"),
  createdAt: createdAt(),
  updatedAt: stampedAt("updated_at").$onUpdate(() => new Date()),
});

/** Members of team workspaces; a personal workspace (a person's own account) has none. */
export const workspaceMembers = sqliteTable(
  "workspace_members",
  {
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: ["owner", "admin", "editor", "viewer"] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index("workspace_members_user_idx").on(t.userId)],
);

/** Who changed what in a workspace; each row is written in the batch of the change it records. */
export const workspaceAudit = sqliteTable(
  "workspace_audit",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    at: stampedAt("at"),
    actorUserId: integer("actor_user_id"),
    actorEmail: text("actor_email"),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    detail: text("detail").notNull().default("{}"),
  },
  (t) => [index("workspace_audit_workspace_idx").on(t.workspaceId, t.id)],
);

/** Only a SHA-256 hash of each key is kept; the key itself is shown once, at creation. */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    mode: text("mode", { enum: ["live", "test"] }).notNull(),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull().unique(),
    scopes: text("scopes").notNull(),
    /** The one workspace the key acts in; null: wherever its person may act. */
    workspaceId: integer("workspace_id").references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at"),
    expiresAt: timestamp("expires_at"),
    revokedAt: timestamp("revoked_at"),
  },
  (t) => [index("api_keys_user_idx").on(t.userId)],
);

/** OAuth 2.0 client applications registered in the developer portal. */
export const oauthApps = sqliteTable(
  "oauth_apps",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    clientId: text("client_id").notNull().unique(),
    /** Null for a public client (registered dynamically, RFC 7591): it proves itself with PKCE instead. */
    clientSecretHash: text("client_secret_hash"),
    /** The developer who registered the app; null for a client that registered itself (an MCP client). */
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    redirectUris: text("redirect_uris", { mode: "json" }).$type<string[]>().notNull(),
    scopes: text("scopes").notNull(),
    createdAt: createdAt(),
    revokedAt: timestamp("revoked_at"),
  },
  (t) => [index("oauth_apps_user_idx").on(t.userId)],
);

/**
 * A grant is one sign-in or one authorization: every JWT access token and refresh token
 * belongs to one. Revoking the grant (logout, a reused authorization code, a reused refresh
 * token, a deleted app) kills every token issued under it at once.
 */
export const grants = sqliteTable(
  "grants",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    clientId: text("client_id"),
    /** `browser`: a sign-in of the dashboard or the authorize page (its cookie, no tokens). */
    kind: text("kind", { enum: ["login", "browser", "authorization_code", "client_credentials"] }).notNull(),
    scopes: text("scopes").notNull(),
    /** RFC 8707: the resource its tokens are for (their `aud`); null for the hub's own API. */
    resource: text("resource"),
    createdAt: createdAt(),
    revokedAt: timestamp("revoked_at"),
  },
  (t) => [index("grants_user_idx").on(t.userId), index("grants_client_idx").on(t.clientId)],
);

export const authorizationCodes = sqliteTable(
  "authorization_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    clientId: text("client_id").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    redirectUri: text("redirect_uri").notNull(),
    scopes: text("scopes").notNull(),
    codeChallenge: text("code_challenge"),
    /** RFC 8707: the resource the person approved the code for. */
    resource: text("resource"),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at").notNull(),
    usedAt: timestamp("used_at"),
    /** The grant created when the code was exchanged; revoked if the code is presented again. */
    grantId: text("grant_id"),
  },
  (t) => [index("authorization_codes_expiry_idx").on(t.expiresAt)],
);

export const refreshTokens = sqliteTable(
  "refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    grantId: text("grant_id")
      .notNull()
      .references(() => grants.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at").notNull(),
    usedAt: timestamp("used_at"),
  },
  (t) => [index("refresh_tokens_grant_idx").on(t.grantId), index("refresh_tokens_expiry_idx").on(t.expiresAt)],
);

export type User = typeof users.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;
export type OAuthApp = typeof oauthApps.$inferSelect;
export type Grant = typeof grants.$inferSelect;

/**
 * A user's connection to one platform. `config` is the platform's config with every secret
 * field sealed (see connections/secret-box.ts); `uid` is the record identity the seals are bound to.
 */
export const connections = sqliteTable(
  "connections",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    uid: text("uid").notNull().unique(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    platform: text("platform").notNull(),
    name: text("name").notNull(),
    config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** `pending`: an OAuth connection waiting for the person to authorize it. */
    status: text("status", { enum: ["active", "error", "expired", "pending"] })
      .notNull()
      .default("active"),
    errorMessage: text("error_message"),
    /** For MCP connections: the server's tool list as last loaded. */
    toolsCache: text("tools_cache", { mode: "json" }).$type<unknown[]>(),
    toolsCachedAt: timestamp("tools_cached_at"),
    lastUsedAt: timestamp("last_used_at"),
    createdAt: createdAt(),
    updatedAt: stampedAt("updated_at").$onUpdate(() => new Date()),
    /** `config`: credentials in the config; `oauth2`: tokens from an OAuth authorization (the columns below). */
    authMode: text("auth_mode", { enum: ["config", "oauth2"] })
      .notNull()
      .default("config"),
    /** The access and refresh tokens, sealed together (connections/oauth-tokens.ts); never returned. */
    oauthTokens: text("oauth_tokens"),
    oauthScopes: text("oauth_scopes", { mode: "json" }).$type<string[]>(),
    oauthExpiresAt: timestamp("oauth_expires_at"),
    oauthRefreshedAt: timestamp("oauth_refreshed_at"),
    /** MCP servers: the client registration and discovery results, sealed. */
    oauthClient: text("oauth_client"),
  },
  (t) => [index("connections_user_idx").on(t.userId, t.platform)],
);

/**
 * OAuth authorizations under way (DESIGN §5): one row per `state`, of which only a SHA-256 hash is
 * kept; single use, bound to the person who started it, 10 minutes. `sealed` holds the PKCE
 * verifier (and an MCP server's registration and discovery results). `connectionId` is null when
 * an MCP connection test started it: the callback then creates the connection from `draft`.
 */
export const oauthAuthorizations = sqliteTable(
  "oauth_authorizations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    stateHash: text("state_hash").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    connectionId: integer("connection_id").references(() => connections.id, { onDelete: "cascade" }),
    connectionUid: text("connection_uid").notNull(),
    platform: text("platform").notNull(),
    /** Who started it: only they complete it (null on rows from before teams, where user_id is the person). */
    actorUserId: integer("actor_user_id").references(() => users.id, { onDelete: "cascade" }),
    draft: text("draft", { mode: "json" }).$type<{ name: string; config: Record<string, unknown> }>(),
    sealed: text("sealed").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    returnTo: text("return_to"),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at").notNull(),
  },
  (t) => [
    uniqueIndex("oauth_authorizations_state_unique").on(t.stateHash),
    index("oauth_authorizations_user_idx").on(t.userId, t.expiresAt),
    index("oauth_authorizations_expiry_idx").on(t.expiresAt),
  ],
);

export type OAuthAuthorization = typeof oauthAuthorizations.$inferSelect;

/** One row per tool call: who, with which credential, what (secrets redacted), how it went. */
export const auditLogs = sqliteTable(
  "audit_logs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    credentialId: text("credential_id").notNull(),
    callId: text("call_id").notNull(),
    tool: text("tool").notNull(),
    connectionId: integer("connection_id"),
    arguments: text("arguments", { mode: "json" }).$type<unknown>(),
    outcome: text("outcome", { enum: ["success", "error"] }).notNull(),
    errorMessage: text("error_message"),
    durationMs: integer("duration_ms").notNull(),
    source: text("source").notNull().default("api"),
    createdAt: createdAt(),
  },
  (t) => [
    index("audit_logs_user_idx").on(t.userId, t.id),
    // One record per call: a batch written again, or taken over from a cut-off writer, adds none.
    uniqueIndex("audit_logs_call_id_unique").on(t.callId),
  ],
);

/** The built-in memory tools' per-user key-value store. */
export const memoryEntries = sqliteTable(
  "memory_entries",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    value: text("value", { mode: "json" }).$type<unknown>(),
    expiresAt: timestamp("expires_at"),
    updatedAt: stampedAt("updated_at").$onUpdate(() => new Date()),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] })],
);

export type Connection = typeof connections.$inferSelect;
export type AuditLog = typeof auditLogs.$inferSelect;

/**
 * The index of conversations, for listings across a user's conversations. Each conversation's
 * messages and turn state live in its own Durable Object (conversations/conversation-object.ts).
 */
export const conversations = sqliteTable(
  "conversations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text("title"),
    state: text("state", { enum: ["idle", "processing", "awaiting_approval"] })
      .notNull()
      .default("idle"),
    messageCount: integer("message_count").notNull().default(0),
    lastMessagePreview: text("last_message_preview"),
    /** The agent the conversation talks to: its turns use the agent's agent_config (migration 0033). */
    agentId: text("agent_id").references(() => agents.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: stampedAt("updated_at"),
  },
  (t) => [index("conversations_user_recent_idx").on(t.userId, t.updatedAt, t.id)],
);

export type Conversation = typeof conversations.$inferSelect;

/** A workflow: ordered steps plus trigger, variables and settings (SPEC: Workflow). */
export const workflows = sqliteTable(
  "workflows",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    status: text("status", { enum: ["draft", "active", "paused", "archived"] })
      .notNull()
      .default("active"),
    version: integer("version").notNull().default(1),
    isTemplate: integer("is_template", { mode: "boolean" }).notNull().default(false),
    triggerType: text("trigger_type").notNull().default("manual"),
    triggerConfig: text("trigger_config", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    variables: text("variables", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    metadata: text("workflow_metadata", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    /** Signs `settings.notify` deliveries (sealed); shown once, when notify is first set. */
    notifySecret: text("notify_secret"),
    steps: text("steps", { mode: "json" }).$type<unknown[]>().notNull(),
    createdAt: createdAt(),
    updatedAt: stampedAt("updated_at"),
  },
  (t) => [
    index("workflows_user_idx").on(t.userId, t.id),
    // The few workflows with their own settings.retention_days (migration 0045).
    index("workflows_retention_idx")
      .on(sql`json_extract(${t.settings}, '$.retention_days')`)
      .where(sql`json_extract(${t.settings}, '$.retention_days') is not null`),
  ],
);

/** Every version of a workflow's steps, so an older one can be seen and restored. */
export const workflowVersions = sqliteTable(
  "workflow_versions",
  {
    workflowId: integer("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    steps: text("steps", { mode: "json" }).$type<unknown[]>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workflowId, t.version] })],
);

/** One run of a workflow, pinned to the version and steps it started with. */
export const executions = sqliteTable(
  "executions",
  {
    id: text("id").primaryKey(),
    workflowId: integer("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    credentialId: text("credential_id").notNull(),
    workflowVersion: integer("workflow_version").notNull(),
    steps: text("steps", { mode: "json" }).$type<unknown[]>().notNull(),
    settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    variables: text("variables", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    input: text("input", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** `waiting`: parked at a wait_for_event step, holding no lease, until the event or its timeout. */
    status: text("status", { enum: ["queued", "running", "waiting", "succeeded", "failed", "cancelled"] })
      .notNull()
      .default("queued"),
    errorMessage: text("error_message"),
    failedStepId: text("failed_step_id"),
    /** Whoever holds an unexpired lease is the only one running this execution's steps. */
    leaseToken: text("lease_token"),
    leaseUntil: timestamp("lease_until"),
    agentId: text("agent_id"),
    createdAt: createdAt(),
    startedAt: timestamp("started_at"),
    finishedAt: timestamp("finished_at"),
    updatedAt: stampedAt("updated_at"),
    /** Set on a retry: the failed run whose succeeded steps it reuses. */
    retryOf: text("retry_of"),
    /** Set on a replay: the run whose input it ran again, from the start, on the workflow as it is now. */
    replayOf: text("replay_of"),
    /** Model tokens spent by the run's llm steps. */
    tokensUsed: integer("tokens_used").notNull().default(0),
    /** Set on a child run started by a `workflow` step: the run to wake when this one ends. */
    parentExecutionId: text("parent_execution_id"),
    /** How deep in `workflow` steps this run sits (a top-level run is 0; at most 5). */
    depth: integer("depth").notNull().default(0),
    /** Bytes of step results the run has written (MAX_RUN_STORED_BYTES), kept with the checkpoints. */
    storedBytes: integer("stored_bytes").notNull().default(0),
    /** On a child or on_failure run: the top run of its tree (null on that run itself). */
    rootExecutionId: text("root_execution_id"),
    /** On a top run: how many runs its tree has set off, at any depth (MAX_RUN_DESCENDANTS). */
    descendants: integer("descendants").notNull().default(0),
    /** A run of an agent with agent_config.goal, once ended (and judged): whether it met the goal, and why. */
    verdict: text("verdict", { enum: ["goal_met", "goal_not_met"] }),
    verdictReason: text("verdict_reason"),
    /** Step failures that `on_error` took over (continue, or handler steps that ran), the run going on past them (DESIGN §6.5). */
    errorsHandled: integer("errors_handled").notNull().default(0),
    /** What started the run (GET /v1/executions?trigger=): manual, schedule, webhook, poll, child, on_failure, retry, replay. */
    trigger: text("trigger_source", { enum: ["manual", "schedule", "webhook", "poll", "child", "on_failure", "retry", "replay"] })
      .notNull()
      .default("manual"),
    /** `test`: started by POST /v1/workflows/{id}/test; counted in no agent's monitoring, never notified or replayed. */
    mode: text("mode", { enum: ["production", "test"] })
      .notNull()
      .default("production"),
    /** A test run's pinned step results by step id: those steps do not run and give these. */
    pinned: text("pinned", { mode: "json" }).$type<Record<string, unknown>>(),
    /** A hash of settings.concurrency_key's value for this run, set when it takes its lease (runs are counted per key). */
    concurrencyKey: text("concurrency_key"),
  },
  (t) => [
    index("executions_workflow_idx").on(t.workflowId, t.createdAt),
    // A run is retried once and replayed once (a second request finds the first's run).
    uniqueIndex("executions_replay_of_unique").on(t.replayOf),
    uniqueIndex("executions_retry_of_unique").on(t.retryOf),
    index("executions_parent_idx").on(t.parentExecutionId),
    // An agent's recent runs (its performance metrics).
    index("executions_agent_idx").on(t.agentId, t.finishedAt),
    index("executions_status_idx").on(t.status, t.leaseUntil),
    // Unfinished runs per user (the quota), and runs still relying on a credential (clean-up).
    // GET /v1/executions: the caller's runs newest first, by status, trigger, workflow or agent (migration 0045).
    index("executions_user_status_created_idx").on(t.userId, t.status, t.createdAt, t.id),
    index("executions_user_created_idx").on(t.userId, t.createdAt, t.id),
    index("executions_user_trigger_idx").on(t.userId, t.trigger, t.createdAt, t.id),
    index("executions_user_workflow_idx").on(t.userId, t.workflowId, t.createdAt, t.id),
    index("executions_user_agent_idx").on(t.userId, t.agentId, t.createdAt, t.id),
    index("executions_concurrency_key_idx").on(t.workflowId, t.concurrencyKey, t.leaseUntil),
    // Retention: finished runs by when they finished (src/executions/retention.ts).
    index("executions_finished_idx").on(t.finishedAt, t.workflowId).where(sql`${t.finishedAt} is not null`),
    index("executions_workflow_finished_idx").on(t.workflowId, t.finishedAt).where(sql`${t.finishedAt} is not null`),
    index("executions_credential_idx").on(t.credentialId),
  ],
);

/**
 * The `Idempotency-Key` of an execute request: the same key from the same user within 24 h
 * returns the run it started instead of starting another (DESIGN.md §4).
 */
export const executionKeys = sqliteTable(
  "execution_keys",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    /** What was asked (workflow or agent, and input): the same key with another request is refused. */
    requestHash: text("request_hash").notNull(),
    executionId: text("execution_id")
      .notNull()
      .references(() => executions.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.key] }),
    index("execution_keys_created_idx").on(t.createdAt),
    // A deleted run's keys go with it (retention, migration 0045).
    index("execution_keys_execution_idx").on(t.executionId),
  ],
);

/** The checkpoint of one step of one execution: a succeeded step is never run again. */
export const executionSteps = sqliteTable(
  "execution_steps",
  {
    executionId: text("execution_id")
      .notNull()
      .references(() => executions.id, { onDelete: "cascade" }),
    /** The step's id, with the iteration for steps inside for_each (`send#3`). */
    stepKey: text("step_key").notNull(),
    stepId: text("step_id").notNull(),
    type: text("type").notNull(),
    status: text("status", { enum: ["running", "waiting", "retrying", "succeeded", "failed", "skipped"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    result: text("result", { mode: "json" }).$type<unknown>(),
    errorMessage: text("error_message"),
    /** For delays and retries: when the step may run again. */
    resumeAt: timestamp("resume_at"),
    position: integer("position").notNull(),
    startedAt: timestamp("started_at"),
    finishedAt: timestamp("finished_at"),
    /** Model tokens an llm step spent. */
    tokensUsed: integer("tokens_used").notNull().default(0),
    /** A code step's console lines (the first 100), kept beside its result, not in it. */
    logs: text("logs", { mode: "json" }).$type<string[]>(),
    /** An llm step's model usage over its attempts (DESIGN §6.2 Ledger), as the API shows it. */
    usage: text("usage", { mode: "json" }).$type<{ input_tokens: number; output_tokens: number; cost_usd: number; model: string }>(),
    /** Why a failed step failed, when the API names it with a code (`budget_exceeded`). */
    errorCode: text("error_code"),
  },
  (t) => [primaryKey({ columns: [t.executionId, t.stepKey] })],
);

/**
 * A signed POST of a finished execution to its workflow's `settings.notify.url`, retried with
 * backoff; `attempt_log` keeps each attempt's outcome for the execution's detail.
 */
export const executionNotifications = sqliteTable(
  "execution_notifications",
  {
    id: text("id").primaryKey(),
    executionId: text("execution_id")
      .notNull()
      .references(() => executions.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    url: text("url").notNull(),
    /** pending (due at next_attempt_at), sending (claimed until next_attempt_at), delivered, failed. */
    status: text("status", { enum: ["pending", "sending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    attemptLog: text("attempt_log", { mode: "json" }).$type<{ at: string; status_code: number | null; error: string | null }[]>().notNull().default([]),
    nextAttemptAt: timestamp("next_attempt_at").notNull(),
    deliveredAt: timestamp("delivered_at"),
    createdAt: createdAt(),
  },
  (t) => [index("execution_notifications_execution_idx").on(t.executionId), index("execution_notifications_due_idx").on(t.status, t.nextAttemptAt)],
);

export type Workflow = typeof workflows.$inferSelect;
export type Execution = typeof executions.$inferSelect;
export type ExecutionStep = typeof executionSteps.$inferSelect;

/** A workflow deployed as an autonomous agent, with its monitoring counters. */
export const agents = sqliteTable(
  "agents",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    workflowId: integer("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["active", "paused"] })
      .notNull()
      .default("active"),
    triggerType: text("trigger_type").notNull().default("manual"),
    schedule: text("schedule", { mode: "json" }).$type<Record<string, unknown> | null>(),
    config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    /** The webhook signing secret, sealed (it must be read back to verify signatures). */
    webhookSecret: text("webhook_secret").notNull(),
    /** The credential that deployed it: runs act with it. */
    credentialId: text("credential_id").notNull(),
    executionCount: integer("execution_count").notNull().default(0),
    successCount: integer("success_count").notNull().default(0),
    failureCount: integer("failure_count").notNull().default(0),
    lastError: text("last_error"),
    lastRunAt: timestamp("last_run_at"),
    nextRunAt: timestamp("next_run_at"),
    /** The provider's signing secret for a provider webhook scheme (Stripe, GitHub…), sealed; null until set. */
    providerSecret: text("provider_secret"),
    lastEventAt: timestamp("last_event_at"),
    /** Poll triggers: when the agent's object polls next, and how many polls in a row failed. */
    nextPollAt: timestamp("next_poll_at"),
    pollFailures: integer("poll_failures").notNull().default(0),
    totalDurationMs: integer("total_duration_ms").notNull().default(0),
    lastDurationMs: integer("last_duration_ms"),
    createdAt: createdAt(),
    updatedAt: stampedAt("updated_at"),
  },
  (t) => [index("agents_user_idx").on(t.userId, t.createdAt), index("agents_credential_idx").on(t.credentialId)],
);

export type Agent = typeof agents.$inferSelect;

/** Every webhook delivery and poll of an agent, with its outcome (GET /v1/agents/{id}/events). */
export const agentEvents = sqliteTable(
  "agent_events",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    receivedAt: integer("received_at", { mode: "timestamp_ms" }).notNull(),
    source: text("source", { enum: ["webhook", "poll", "schedule", "manual"] }).notNull(),
    outcome: text("outcome", { enum: ["started", "duplicate", "ignored", "rejected", "error", "skipped"] }).notNull(),
    eventType: text("event_type"),
    eventId: text("event_id"),
    executionId: text("execution_id"),
    detail: text("detail"),
  },
  (t) => [index("agent_events_agent_idx").on(t.agentId, t.receivedAt, t.id), index("agent_events_received_idx").on(t.receivedAt)],
);

export type AgentEvent = typeof agentEvents.$inferSelect;

/** Signatures already accepted by agent webhooks, kept past the timestamp tolerance to refuse replays. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    signatureHash: text("signature_hash").notNull(),
    receivedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.signatureHash] }), index("webhook_deliveries_received_idx").on(t.receivedAt)],
);

/** Scheduled fire times already served, per agent: the dedup key that keeps a run from happening twice. */
export const agentFires = sqliteTable(
  "agent_fires",
  {
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    dueAt: integer("due_at").notNull(),
    source: text("source").notNull(),
    firedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.dueAt] })],
);

/** Marketplace templates: the built-in catalog (seeded by a migration) and ones users publish. */
export const templates = sqliteTable(
  "templates",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    description: text("description").notNull(),
    category: text("category").notNull(),
    difficulty: text("difficulty", { enum: ["beginner", "intermediate", "advanced"] }).notNull(),
    requiredConnections: text("required_connections", { mode: "json" }).$type<string[]>().notNull(),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
    featured: integer("featured", { mode: "boolean" }).notNull().default(false),
    useCount: integer("use_count").notNull().default(0),
    triggerType: text("trigger_type").notNull().default("manual"),
    triggerConfig: text("trigger_config", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    variables: text("variables", { mode: "json" }).$type<Record<string, { default: unknown; description: string }>>().notNull(),
    steps: text("steps", { mode: "json" }).$type<unknown[]>().notNull(),
    /** Null for the built-in catalog; the publisher for published workflows. */
    authorUserId: integer("author_user_id").references(() => users.id, { onDelete: "cascade" }),
    sourceWorkflowId: integer("source_workflow_id"),
    createdAt: createdAt(),
    updatedAt: stampedAt("updated_at"),
  },
  (t) => [index("templates_category_idx").on(t.category), index("templates_author_idx").on(t.authorUserId)],
);

export type Template = typeof templates.$inferSelect;

/**
 * Who used which template: a template's `use_count` counts distinct users other than its
 * publisher, so nobody can lift their own template up the featured list by using it again.
 */
export const templateUses = sqliteTable(
  "template_uses",
  {
    templateId: text("template_id")
      .notNull()
      .references(() => templates.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    usedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.templateId, t.userId] })],
);

/**
 * Flash cookies carrying a one-time secret (a new agent's webhook secret) that were shown: the
 * first showing inserts the flash's id, so the same cookie presented again shows nothing. Kept
 * until the flash expires (housekeeping removes it then).
 */
export const oneTimeFlashes = sqliteTable(
  "one_time_flashes",
  {
    id: text("id").primaryKey(),
    expiresAt: timestamp("expires_at").notNull(),
  },
  (t) => [index("one_time_flashes_expiry_idx").on(t.expiresAt)],
);

/**
 * Platforms people made from an OpenAPI document (DESIGN §5), private to their maker. `uid` is the
 * platform id (`cp_…`) connections and tool names use; `auth` and `tools` are the declarations
 * read from the document (connections/custom/declarations.ts), not the document itself.
 */
export const customPlatforms = sqliteTable(
  "custom_platforms",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    uid: text("uid").notNull().unique(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description").notNull(),
    openapiVersion: text("openapi_version").notNull(),
    serverUrl: text("server_url").notNull(),
    auth: text("auth", { mode: "json" }).$type<unknown>().notNull(),
    tools: text("tools", { mode: "json" }).$type<unknown[]>().notNull(),
    /** How many tools `tools` declares, and its size in UTF-8 bytes: lists and pages read these instead of the JSON. */
    toolCount: integer("tool_count").notNull().default(0),
    toolsBytes: integer("tools_bytes").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index("custom_platforms_user_idx").on(t.userId, t.id)],
);

export type CustomPlatformRow = typeof customPlatforms.$inferSelect;

/**
 * What an agent with `agent_config.memory` remembers (DESIGN §6.1), written by its `memory_save`
 * tool. `conversation_id` and `execution_id` say where a memory was saved; they are not keys, so a
 * memory outlives the conversation or run it came from. Searched through the FTS5 table
 * `agent_memories_fts` (migration 0037), which triggers keep in step with this one; drizzle-kit
 * cannot declare it, so src/memories/fts.ts names it for queries.
 */
export const agentMemories = sqliteTable(
  "agent_memories",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    text: text("text").notNull(),
    conversationId: integer("conversation_id"),
    executionId: text("execution_id"),
    createdAt: createdAt(),
  },
  (t) => [index("agent_memories_agent_idx").on(t.agentId, t.id)],
);

export type AgentMemory = typeof agentMemories.$inferSelect;

/** The account's tool policy rules (DESIGN §6.2), consulted after an agent's own. */
export const toolPolicies = sqliteTable("tool_policies", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  rules: text("rules", { mode: "json" }).notNull().$type<unknown[]>(),
  updatedAt: stampedAt("updated_at"),
});

/** A tool call ruled `ask`, waiting for (or decided by) a person (DESIGN §6.2 Approvals). */
export const approvals = sqliteTable(
  "approvals",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["pending", "approved", "denied", "expired"] })
      .notNull()
      .default("pending"),
    tool: text("tool").notNull(),
    arguments: text("arguments", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
    effect: text("effect").notNull(),
    rule: text("rule", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
    toolCallId: text("tool_call_id"),
    conversationId: integer("conversation_id"),
    messageId: integer("message_id"),
    executionId: text("execution_id"),
    stepId: text("step_id"),
    agentId: text("agent_id"),
    /** The channels told of it, with what each needs to update its message later (a Slack ts). */
    notify: text("notify", { mode: "json" }).notNull().$type<unknown[]>().default([]),
    /** SHA-256 of the email link's token; null once decided (the link dies with the approval). */
    linkTokenHash: text("link_token_hash"),
    requestedAt: stampedAt("requested_at"),
    expiresAt: timestamp("expires_at").notNull(),
    decidedAt: timestamp("decided_at"),
    decidedBy: text("decided_by"),
    note: text("note"),
  },
  (t) => [
    index("approvals_user_idx").on(t.userId, t.requestedAt),
    index("approvals_user_status_idx").on(t.userId, t.status, t.requestedAt),
    index("approvals_conversation_idx").on(t.conversationId, t.status),
    uniqueIndex("approvals_link_token_idx").on(t.linkTokenHash),
  ],
);

export type Approval = typeof approvals.$inferSelect;

/**
 * The ledger (DESIGN §6.2): one row per model request that got an answer, with what the provider
 * reported. Costs are integer nano-dollars so that sums are exact; the ids of what spent carry no
 * foreign keys, so deleting an agent or a run does not erase its spending (migration 0040).
 */
export const modelUsage = sqliteTable(
  "model_usage",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    agentId: text("agent_id"),
    conversationId: integer("conversation_id"),
    executionId: text("execution_id"),
    workflowId: integer("workflow_id"),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    inputTokens: integer("input_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    costNanoUsd: integer("cost_nanousd").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("model_usage_user_idx").on(t.userId, t.createdAt),
    index("model_usage_agent_idx").on(t.agentId, t.createdAt),
    index("model_usage_execution_idx").on(t.executionId),
  ],
);

/**
 * The account's budget (PUT /v1/me/budget). A table of its own rather than columns on `users`:
 * only the accounts that set a budget need a row, and a budget check reads nothing else of the account.
 */
export const accountBudgets = sqliteTable("account_budgets", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  maxNanoUsdPerMonth: integer("max_nanousd_per_month"),
  maxTokensPerDay: integer("max_tokens_per_day"),
  updatedAt: stampedAt("updated_at"),
});

/**
 * The spans of a chat turn's trace (DESIGN §6.3 Traces), written in one batch when the turn ends:
 * names, ids, models, token counts, times and outcomes only (never arguments or results). A run's
 * trace is built on read from its step records, so `execution_id` is only for spans recorded in a run.
 */
export const traceSpans = sqliteTable(
  "trace_spans",
  {
    traceId: text("trace_id").notNull(),
    spanId: text("span_id").notNull(),
    parentSpanId: text("parent_span_id"),
    name: text("name").notNull(),
    /** The OpenTelemetry span kind: 1 internal, 3 client. */
    kind: integer("kind").notNull(),
    startMs: integer("start_ms").notNull(),
    endMs: integer("end_ms").notNull(),
    status: text("status", { enum: ["unset", "ok", "error"] }).notNull(),
    attributes: text("attributes", { mode: "json" }).$type<Record<string, string | number | boolean>>().notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    conversationId: integer("conversation_id").references(() => conversations.id, { onDelete: "cascade" }),
    /** The assistant message the turn stored last (each part of a turn that waited for approval has its own). */
    messageId: integer("message_id"),
    executionId: text("execution_id"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.traceId, t.spanId] }),
    index("trace_spans_message_idx").on(t.conversationId, t.messageId),
    index("trace_spans_execution_idx").on(t.executionId),
  ],
);

/** An eval of an agent (DESIGN §6.3 Evals): its cases' verdicts, kept to be read again. */
export const agentEvals = sqliteTable(
  "agent_evals",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    result: text("result", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index("agent_evals_agent_idx").on(t.agentId, t.createdAt)],
);

/** A workflow's open debounce windows (settings.debounce): the queued run each key's starts collapse into. */
export const debounceWindows = sqliteTable(
  "debounce_windows",
  {
    workflowId: integer("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    keyHash: text("key_hash").notNull(),
    executionId: text("execution_id").notNull(),
    firstAt: integer("first_at").notNull(),
    firesAt: integer("fires_at").notNull(),
    /** The nonce of the last start that joined the window. */
    lastStart: text("last_start").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workflowId, t.keyHash] }),
    index("debounce_windows_fires_idx").on(t.workflowId, t.firesAt),
    index("debounce_windows_old_idx").on(t.firesAt),
  ],
);

/** Starts of a workflow counted per fixed window of settings.rate_limit.period_seconds. */
export const rateWindows = sqliteTable(
  "rate_windows",
  {
    workflowId: integer("workflow_id")
      .notNull()
      .references(() => workflows.id, { onDelete: "cascade" }),
    windowStart: integer("window_start").notNull(),
    starts: integer("starts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workflowId, t.windowStart] }), index("rate_windows_old_idx").on(t.windowStart)],
);

/** Kinds of events an account's alerts may tell of (DESIGN §6.5 Alerts). */
export const ALERT_KINDS = ["run_failed", "agent_stopped", "connection_expired", "budget_exceeded"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** An account's alerts (PUT /v1/me/alerts): what is recorded, how often a channel may be told, the webhook signing secret (sealed). */
export const alertSettings = sqliteTable("alert_settings", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  events: text("events", { mode: "json" }).$type<AlertKind[]>().notNull().default([]),
  minIntervalSeconds: integer("min_interval_seconds").notNull().default(900),
  signingSecret: text("signing_secret").notNull(),
  /** Events not kept because the backlog was full; each channel says how many it missed since its last message. */
  droppedTotal: integer("dropped_total").notNull().default(0),
  updatedAt: stampedAt("updated_at"),
});

/** One channel of an account's alerts, with its own progress: sent through which event, when, and a claim while sending. */
export const alertChannels = sqliteTable(
  "alert_channels",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    channel: text("channel", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    sentThrough: integer("sent_through").notNull().default(0),
    droppedSeen: integer("dropped_seen").notNull().default(0),
    lastSentAt: timestamp("last_sent_at"),
    claimedUntil: timestamp("claimed_until"),
    lastError: text("last_error"),
  },
  (t) => [primaryKey({ columns: [t.userId, t.position] })],
);

/** Something an account's alerts tell of, kept until every channel was sent it; repeats of one subject fold into its row. */
export const alertEvents = sqliteTable(
  "alert_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ALERT_KINDS }).notNull(),
    subject: text("subject").notNull(),
    summary: text("summary").notNull(),
    occurrences: integer("occurrences").notNull().default(1),
    createdAt: createdAt(),
    lastAt: stampedAt("last_at"),
  },
  (t) => [uniqueIndex("alert_events_subject_idx").on(t.userId, t.kind, t.subject)],
);
export type AlertEventRow = typeof alertEvents.$inferSelect;
