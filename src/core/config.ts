import type { Env } from "../env";

export type Environment = "production" | "sandbox";

/** Deployment settings, parsed once per isolate from the raw bindings. */
export interface Config {
  environment: Environment;
  jwtIssuer: string;
  jwtAudience: string;
  /** Undefined when the secret is missing: routes that sign or verify tokens then fail closed. */
  jwtSecret: Uint8Array | undefined;
  allowRegistration: boolean;
  limits: {
    requestsPerMinute: number;
    userRequestsPerMinute: number;
    toolCallsPerMinute: number;
    authAttemptsPerMinute: number;
    /** Failed sign-ins per account per minute, whatever the address (ACCOUNT_AUTH_RATE_LIMIT_PER_MINUTE). */
    accountAuthFailuresPerMinute: number;
    /** Model calls on the deployment's own provider keys, per user per minute (MODEL_RATE_LIMIT_PER_MINUTE). */
    modelCallsPerMinute: number;
    /** Run notifications (settings.notify) sent per user per minute (NOTIFY_RATE_LIMIT_PER_MINUTE); the rest wait. */
    notificationsPerMinute: number;
    /** One model call, request to last byte (MODEL_CALL_TIMEOUT_SECONDS), whoever makes it. */
    modelCallMs: number;
    /** Tool calls of one model answer running at once (MAX_PARALLEL_TOOL_CALLS). */
    parallelToolCalls: number;
  };
  /** PUBLIC_URL as an origin (`https://hub.example.com`), for links sent from background work; undefined when unset or not an http(s) URL. */
  publicUrl: string | undefined;
  /** OTEL_EXPORTER_OTLP_ENDPOINT (an http(s) URL; undefined when unset or invalid) and OTEL_EXPORTER_OTLP_HEADERS: where traces are also sent. */
  otel: { endpoint: string | undefined; headers: Record<string, string> };
  /** See ALLOW_PRIVATE_NETWORK_URLS: whether user-given URLs may reach loopback and private networks. */
  allowPrivateNetworkUrls: boolean;
  /** See DNS_RESOLVER_URL; undefined when names are not resolved. */
  dnsResolverUrl: string | undefined;
  /** See TRUST_CLIENT_IP_HEADER. */
  trustClientIpHeader: "auto" | "always" | "never";
  /** The deployment's own model provider settings; a user's connection wins over them. */
  providers: {
    /** DEFAULT_PROVIDER: the provider used when neither the call nor the user names one. */
    defaultProvider: string | undefined;
    openai: { apiKey: string | undefined; baseUrl: string | undefined; model: string };
    anthropic: { apiKey: string | undefined; baseUrl: string | undefined; model: string };
    workersAiModel: string | undefined;
    /**
     * ALLOWED_MODELS: the models a user may name when a call runs on the deployment's own key
     * (comma-separated). Default: only the configured model of each provider.
     */
    allowedModels: string[] | undefined;
  };
  /** MODEL_PRICES: USD per million tokens by model id, over the built-in prices; {} when unset or invalid. */
  modelPrices: Record<string, ModelPrice>;
  /** ENCRYPTION_KEYS (or ENCRYPTION_KEY as key id k1): read by `secretBoxFor`, which fails closed without them. */
  encryption: { key: string | undefined; keys: string | undefined };
  /**
   * The deployment's OAuth clients by platform id (OAUTH_<PLATFORM>_CLIENT_ID / _CLIENT_SECRET),
   * for platforms with native OAuth; a platform without one needs the connection's own client.
   */
  oauthClients: Partial<Record<OAuthClientPlatform, { clientId: string; clientSecret: string | undefined }>>;
  quotas: {
    workflowsPerUser: number;
    agentsPerUser: number;
    runningExecutionsPerUser: number;
    /** The shortest interval an agent may be scheduled at. */
    minIntervalSeconds: number;
    /** Bytes of step results one run may store in total (MAX_RUN_STORED_BYTES); past it the run fails. */
    runStoredBytes: number;
    /** Runs one run may set off in total: child runs and on_failure runs, at any depth (MAX_RUN_DESCENDANTS). */
    runDescendants: number;
    /** Characters of a workflow's JSON (steps, variables, settings, metadata) (MAX_WORKFLOW_BYTES). */
    workflowBytes: number;
    /** Versions kept per workflow; older ones are dropped (MAX_WORKFLOW_VERSIONS). */
    workflowVersions: number;
    /** Templates one user may have published (MAX_PUBLISHED_TEMPLATES_PER_USER). */
    publishedTemplatesPerUser: number;
    /** Conversations per user (MAX_CONVERSATIONS_PER_USER). */
    conversationsPerUser: number;
  };
  /** Days a finished run is kept unless its workflow's settings.retention_days says otherwise (EXECUTION_RETENTION_DAYS, default 30, at most 3650). */
  executionRetentionDays: number;
}

export interface ModelPrice {
  inputPerMtok: number;
  outputPerMtok: number;
}

/** Platforms whose OAuth client the deployment may configure. */
export const OAUTH_CLIENT_PLATFORMS = ["slack", "hubspot", "google", "salesforce", "linkedin", "x", "microsoft_teams"] as const;
export type OAuthClientPlatform = (typeof OAUTH_CLIENT_PLATFORMS)[number];

const parsed = new WeakMap<Env, Config>();

export function loadConfig(env: Env): Config {
  let config = parsed.get(env);
  if (!config) {
    config = parseConfig(env);
    parsed.set(env, config);
  }
  return config;
}

function parseConfig(env: Env): Config {
  const environment: Environment = env.ENVIRONMENT === "production" ? "production" : "sandbox";
  const issuer = env.JWT_ISSUER?.trim() || "agent-automation-hub";
  return {
    environment,
    jwtIssuer: issuer,
    jwtAudience: `${issuer}/v1`,
    jwtSecret: env.JWT_SECRET && env.JWT_SECRET.length >= 32 ? new TextEncoder().encode(env.JWT_SECRET) : undefined,
    allowRegistration: (env.ALLOW_REGISTRATION ?? "true").toLowerCase() !== "false",
    limits: {
      requestsPerMinute: positiveInt(env.REQUEST_RATE_LIMIT_PER_MINUTE, 600),
      userRequestsPerMinute: positiveInt(env.USER_RATE_LIMIT_PER_MINUTE, 1800),
      toolCallsPerMinute: positiveInt(env.TOOL_RATE_LIMIT_PER_MINUTE, 60),
      authAttemptsPerMinute: positiveInt(env.AUTH_RATE_LIMIT_PER_MINUTE, 30),
      accountAuthFailuresPerMinute: positiveInt(env.ACCOUNT_AUTH_RATE_LIMIT_PER_MINUTE, 10),
      modelCallsPerMinute: positiveInt(env.MODEL_RATE_LIMIT_PER_MINUTE, 30),
      notificationsPerMinute: positiveInt(env.NOTIFY_RATE_LIMIT_PER_MINUTE, 60),
      modelCallMs: Math.min(positiveInt(env.MODEL_CALL_TIMEOUT_SECONDS, 90), 600) * 1000,
      parallelToolCalls: Math.min(positiveInt(env.MAX_PARALLEL_TOOL_CALLS, 4), 16),
    },
    trustClientIpHeader: trustSetting(env.TRUST_CLIENT_IP_HEADER),
    publicUrl: originSetting(env.PUBLIC_URL),
    otel: { endpoint: otlpEndpointSetting(env.OTEL_EXPORTER_OTLP_ENDPOINT), headers: otlpHeadersSetting(env.OTEL_EXPORTER_OTLP_HEADERS) },
    dnsResolverUrl: resolverSetting(env.DNS_RESOLVER_URL, environment),
    allowPrivateNetworkUrls: env.ALLOW_PRIVATE_NETWORK_URLS ? env.ALLOW_PRIVATE_NETWORK_URLS.trim().toLowerCase() === "true" : environment !== "production",
    providers: {
      defaultProvider: env.DEFAULT_PROVIDER?.trim() || undefined,
      openai: { apiKey: env.OPENAI_API_KEY || undefined, baseUrl: env.OPENAI_BASE_URL || undefined, model: env.OPENAI_MODEL || "gpt-4o-mini" },
      anthropic: {
        apiKey: env.ANTHROPIC_API_KEY || undefined,
        baseUrl: env.ANTHROPIC_BASE_URL || undefined,
        model: env.ANTHROPIC_MODEL || "claude-sonnet-4-5",
      },
      workersAiModel: env.WORKERS_AI_MODEL || undefined,
      allowedModels: listSetting(env.ALLOWED_MODELS),
    },
    modelPrices: modelPricesSetting(env.MODEL_PRICES),
    encryption: { key: env.ENCRYPTION_KEY || undefined, keys: env.ENCRYPTION_KEYS || undefined },
    oauthClients: oauthClientsOf(env),
    quotas: {
      workflowsPerUser: positiveInt(env.MAX_WORKFLOWS_PER_USER, 1000),
      agentsPerUser: positiveInt(env.MAX_AGENTS_PER_USER, 100),
      runningExecutionsPerUser: positiveInt(env.MAX_RUNNING_EXECUTIONS_PER_USER, 500),
      // Every second is handy while building locally; a deployment keeps agents from hammering.
      minIntervalSeconds: positiveInt(env.MIN_INTERVAL_SECONDS, environment === "production" ? 10 : 1),
      runStoredBytes: positiveInt(env.MAX_RUN_STORED_BYTES, 16 * 1024 * 1024),
      runDescendants: positiveInt(env.MAX_RUN_DESCENDANTS, 1000),
      workflowBytes: positiveInt(env.MAX_WORKFLOW_BYTES, 256 * 1024),
      workflowVersions: positiveInt(env.MAX_WORKFLOW_VERSIONS, 50),
      publishedTemplatesPerUser: positiveInt(env.MAX_PUBLISHED_TEMPLATES_PER_USER, 20),
      conversationsPerUser: positiveInt(env.MAX_CONVERSATIONS_PER_USER, 1000),
    },
    executionRetentionDays: Math.min(positiveInt(env.EXECUTION_RETENTION_DAYS, 30), 3650),
  };
}

function oauthClientsOf(env: Env): Config["oauthClients"] {
  const given: Record<OAuthClientPlatform, [string | undefined, string | undefined]> = {
    slack: [env.OAUTH_SLACK_CLIENT_ID, env.OAUTH_SLACK_CLIENT_SECRET],
    hubspot: [env.OAUTH_HUBSPOT_CLIENT_ID, env.OAUTH_HUBSPOT_CLIENT_SECRET],
    google: [env.OAUTH_GOOGLE_CLIENT_ID, env.OAUTH_GOOGLE_CLIENT_SECRET],
    salesforce: [env.OAUTH_SALESFORCE_CLIENT_ID, env.OAUTH_SALESFORCE_CLIENT_SECRET],
    linkedin: [env.OAUTH_LINKEDIN_CLIENT_ID, env.OAUTH_LINKEDIN_CLIENT_SECRET],
    x: [env.OAUTH_X_CLIENT_ID, env.OAUTH_X_CLIENT_SECRET],
    microsoft_teams: [env.OAUTH_MICROSOFT_TEAMS_CLIENT_ID, env.OAUTH_MICROSOFT_TEAMS_CLIENT_SECRET],
  };
  const clients: Config["oauthClients"] = {};
  for (const platform of OAUTH_CLIENT_PLATFORMS) {
    const [id, secret] = given[platform];
    if (id?.trim()) clients[platform] = { clientId: id.trim(), clientSecret: secret?.trim() || undefined };
  }
  return clients;
}

function positiveInt(raw: string | undefined, fallback: number): number {
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

function listSetting(raw: string | undefined): string[] | undefined {
  const items = (raw ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  return items.length ? items : undefined;
}

/**
 * MODEL_PRICES, all or nothing: a price list with one bad entry would price some models wrong
 * without a sign, so the whole setting is ignored (built-in prices apply) and the reason logged.
 */
function modelPricesSetting(raw: string | undefined): Record<string, ModelPrice> {
  if (!raw?.trim()) return {};
  const price = (value: unknown) => typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1_000_000;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  const entries = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? Object.entries(parsed as Record<string, unknown>) : undefined;
  const bad = entries?.find(([model, value]) => {
    const v = value as Record<string, unknown> | null;
    return !model.trim() || !v || typeof v !== "object" || !price(v.input_per_mtok) || !price(v.output_per_mtok);
  });
  if (!entries || bad) {
    const reason = entries ? `the price of "${bad![0].slice(0, 100)}" is not {input_per_mtok, output_per_mtok} in USD` : "it is not a JSON object";
    console.error(JSON.stringify({ level: "error", message: `MODEL_PRICES is ignored: ${reason}; built-in prices apply.` }));
    return {};
  }
  return Object.fromEntries(
    entries.map(([model, value]) => {
      const v = value as { input_per_mtok: number; output_per_mtok: number };
      return [model.trim(), { inputPerMtok: v.input_per_mtok, outputPerMtok: v.output_per_mtok }];
    }),
  );
}

/** OTEL_EXPORTER_OTLP_ENDPOINT: an http(s) URL without its trailing slash (its path kept); anything else is ignored, and said. */
function otlpEndpointSetting(raw: string | undefined): string | undefined {
  if (!raw?.trim()) return undefined;
  try {
    const url = new URL(raw.trim());
    if ((url.protocol === "https:" || url.protocol === "http:") && !url.username && !url.password && !url.search && !url.hash)
      return url.href.replace(/\/+$/, "");
  } catch {
    // said below
  }
  console.error(
    JSON.stringify({
      level: "error",
      message: "OTEL_EXPORTER_OTLP_ENDPOINT is ignored: it is not an http(s) URL without credentials or query; traces are not exported.",
    }),
  );
  return undefined;
}

/**
 * OTEL_EXPORTER_OTLP_HEADERS, the OpenTelemetry format: `key=value` pairs separated by commas,
 * values percent-decoded. A malformed pair is skipped and named by its key only (values are secrets).
 */
function otlpHeadersSetting(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (raw ?? "").split(",")) {
    if (!pair.trim()) continue;
    const at = pair.indexOf("=");
    const key = (at < 0 ? pair : pair.slice(0, at)).trim();
    let value: string | undefined;
    try {
      value = at < 0 ? undefined : decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      value = undefined;
    }
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key) || value === undefined || /[\r\n]/.test(value)) {
      console.error(JSON.stringify({ level: "error", message: `OTEL_EXPORTER_OTLP_HEADERS: a malformed entry is skipped (key "${key.slice(0, 40)}").` }));
      continue;
    }
    headers[key] = value;
  }
  return headers;
}

/** An http(s) URL's origin (path and trailing slash dropped); anything else: undefined. */
function originSetting(raw: string | undefined): string | undefined {
  if (!raw?.trim()) return undefined;
  try {
    const url = new URL(raw.trim());
    return url.protocol === "https:" || url.protocol === "http:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function trustSetting(raw: string | undefined): Config["trustClientIpHeader"] {
  const value = raw?.trim().toLowerCase();
  return value === "true" ? "always" : value === "false" ? "never" : "auto";
}

function resolverSetting(raw: string | undefined, environment: Environment): string | undefined {
  const value = raw?.trim();
  if (value && value.toLowerCase() === "off") return undefined;
  if (value && /^https:\/\/|^http:\/\/127\.0\.0\.1[:/]/.test(value)) return value;
  return environment === "production" ? "https://cloudflare-dns.com/dns-query" : undefined;
}
