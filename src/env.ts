import type { WorkflowRunMessage } from "./core/messages";

/**
 * Bindings, vars and secrets of the Worker. `worker-configuration.d.ts` is generated from
 * wrangler.toml by `npm run types` (checked by `npm run check`); this adds what wrangler.toml
 * cannot say: secrets and optional settings (`.dev.vars`, `wrangler secret put`), the optional
 * Workers AI binding and the queue's message type. Only `core/config.ts` reads the settings, and
 * only the entry points hand the bindings on.
 */
export interface Env extends WranglerEnv {
  WORKFLOW_RUNS: Queue<WorkflowRunMessage>;

  /** Workers AI, when deployed with an [ai] binding. */
  AI?: Ai;

  JWT_SECRET?: string;
  ENCRYPTION_KEY?: string;
  /** Key rotation: `kid:base64,kid:base64`; the first encrypts, all decrypt. Overrides ENCRYPTION_KEY. */
  ENCRYPTION_KEYS?: string;
  DEFAULT_PROVIDER?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  OPENAI_MODEL?: string;
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  ANTHROPIC_MODEL?: string;
  WORKERS_AI_MODEL?: string;
  /** Comma-separated models users may name on the deployment's own keys; default: the configured ones. */
  ALLOWED_MODELS?: string;
  /**
   * Prices of models per million tokens, as JSON `{"<model>": {"input_per_mtok": 2.5,
   * "output_per_mtok": 10}}`, over the built-in ones (src/usage/prices.ts).
   */
  MODEL_PRICES?: string;
  /** Seconds one model call may take, request to last byte (default 90, at most 600). */
  MODEL_CALL_TIMEOUT_SECONDS?: string;
  /** Days finished runs are kept, for workflows without settings.retention_days (default 30, at most 3650). */
  EXECUTION_RETENTION_DAYS?: string;
  /** Tool calls of one model answer that run at once (default 4, at most 16). */
  MAX_PARALLEL_TOOL_CALLS?: string;
  /** The hub's public address (`https://hub.example.com`), for links in messages sent from background work (approval emails). */
  PUBLIC_URL?: string;
  /** An OTLP/HTTP collector (`http://collector:4318`): traces are also sent as JSON to `<endpoint>/v1/traces`. */
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  /** Headers for that collector, `key=value,key2=value2` (values may be percent-encoded), e.g. its authorization. */
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  /** "true" lets user-given URLs reach loopback and private networks (default: off production only). */
  ALLOW_PRIVATE_NETWORK_URLS?: string;
  /** DNS-over-HTTPS resolver (JSON API) for user-given host names; "off" disables. Default: Cloudflare's on production, off elsewhere. */
  DNS_RESOLVER_URL?: string;
  /**
   * The deployment's own OAuth apps, for "Connect with Slack / HubSpot / Google / Salesforce /
   * LinkedIn / X / Microsoft Teams" (a connection's config may bring its own client instead). The
   * redirect URI to register with each provider is `<origin>/connections/oauth/callback`.
   */
  OAUTH_SLACK_CLIENT_ID?: string;
  OAUTH_SLACK_CLIENT_SECRET?: string;
  OAUTH_HUBSPOT_CLIENT_ID?: string;
  OAUTH_HUBSPOT_CLIENT_SECRET?: string;
  OAUTH_GOOGLE_CLIENT_ID?: string;
  OAUTH_GOOGLE_CLIENT_SECRET?: string;
  OAUTH_SALESFORCE_CLIENT_ID?: string;
  OAUTH_SALESFORCE_CLIENT_SECRET?: string;
  OAUTH_LINKEDIN_CLIENT_ID?: string;
  OAUTH_LINKEDIN_CLIENT_SECRET?: string;
  OAUTH_X_CLIENT_ID?: string;
  OAUTH_X_CLIENT_SECRET?: string;
  OAUTH_MICROSOFT_TEAMS_CLIENT_ID?: string;
  OAUTH_MICROSOFT_TEAMS_CLIENT_SECRET?: string;
}
