import type { AutomationAgent } from "./agents/automation-agent";
import type { ConversationObject } from "./conversations/conversation-object";
import type { RateLimiter } from "./http/rate-limiter";
import type { WorkflowRunMessage } from "./workflows/queue-consumer";

/** Bindings, vars and secrets of the Worker (wrangler.toml, `.dev.vars`, `wrangler secret`). */
export interface Env {
  DB: D1Database;
  CONVERSATIONS: DurableObjectNamespace<ConversationObject>;
  AGENTS: DurableObjectNamespace<AutomationAgent>;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  WORKFLOW_RUNS: Queue<WorkflowRunMessage>;

  /** Workers AI, when deployed with an [ai] binding. */
  AI?: Ai;

  ENVIRONMENT?: string;
  DEFAULT_PROVIDER?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_MODEL?: string;
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  ANTHROPIC_MODEL?: string;
  WORKERS_AI_MODEL?: string;
  JWT_ISSUER?: string;
  JWT_SECRET?: string;
  ENCRYPTION_KEY?: string;
  /** Key rotation: `kid:base64,kid:base64`; the first encrypts, all decrypt. Overrides ENCRYPTION_KEY. */
  ENCRYPTION_KEYS?: string;
  ALLOW_REGISTRATION?: string;
  /** "true" lets user-given URLs reach loopback and private networks (default: off production only). */
  ALLOW_PRIVATE_NETWORK_URLS?: string;
  REQUEST_RATE_LIMIT_PER_MINUTE?: string;
  USER_RATE_LIMIT_PER_MINUTE?: string;
  TOOL_RATE_LIMIT_PER_MINUTE?: string;
  AUTH_RATE_LIMIT_PER_MINUTE?: string;
  /** Per-user quotas (409 quota_exceeded past them) and the shortest interval schedule. */
  MAX_WORKFLOWS_PER_USER?: string;
  MAX_AGENTS_PER_USER?: string;
  MAX_RUNNING_EXECUTIONS_PER_USER?: string;
  MIN_INTERVAL_SECONDS?: string;
  /**
   * Whether per-address limits may trust the client-sent CF-Connecting-IP header: "auto" (only
   * on production, for requests that came through Cloudflare), "true" (behind another proxy that
   * sets it), "false" (never).
   */
  TRUST_CLIENT_IP_HEADER?: string;
  /** DNS-over-HTTPS resolver (JSON API) for user-given host names; "off" disables. Default: Cloudflare's on production, off elsewhere. */
  DNS_RESOLVER_URL?: string;
}

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
  };
  /** See ALLOW_PRIVATE_NETWORK_URLS: whether user-given URLs may reach loopback and private networks. */
  allowPrivateNetworkUrls: boolean;
  /** See DNS_RESOLVER_URL; undefined when names are not resolved. */
  dnsResolverUrl: string | undefined;
  /** See TRUST_CLIENT_IP_HEADER. */
  trustClientIpHeader: "auto" | "always" | "never";
  quotas: {
    workflowsPerUser: number;
    agentsPerUser: number;
    runningExecutionsPerUser: number;
    /** The shortest interval an agent may be scheduled at. */
    minIntervalSeconds: number;
  };
}

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
    },
    trustClientIpHeader: trustSetting(env.TRUST_CLIENT_IP_HEADER),
    dnsResolverUrl: resolverSetting(env.DNS_RESOLVER_URL, environment),
    allowPrivateNetworkUrls: env.ALLOW_PRIVATE_NETWORK_URLS ? env.ALLOW_PRIVATE_NETWORK_URLS.trim().toLowerCase() === "true" : environment !== "production",
    quotas: {
      workflowsPerUser: positiveInt(env.MAX_WORKFLOWS_PER_USER, 1000),
      agentsPerUser: positiveInt(env.MAX_AGENTS_PER_USER, 100),
      runningExecutionsPerUser: positiveInt(env.MAX_RUNNING_EXECUTIONS_PER_USER, 500),
      // Every second is handy while building locally; a deployment keeps agents from hammering.
      minIntervalSeconds: positiveInt(env.MIN_INTERVAL_SECONDS, environment === "production" ? 10 : 1),
    },
  };
}

function positiveInt(raw: string | undefined, fallback: number): number {
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : fallback;
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
