import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { eq } from "drizzle-orm";
import type { ServiceContext } from "../core/context";
import { users } from "../db/schema";
import { defaultConnection } from "../connections/service";
import { openConfig } from "../connections/config-codec";
import { findPlatform } from "../connections/platforms";
import { HubError } from "../core/errors";
import { guardedFetch } from "../net/safe-fetch";
import { addressPolicyFor } from "../net/address-policy";
import { aiSdkProvider } from "./ai-sdk";
import { withDeadline } from "./deadline";
import { localProvider } from "./local/provider";
import { allowedModels, checkModelAllowed, meteredProvider } from "./metering";
import type { ChatProvider } from "./types";
import { DEFAULT_WORKERS_AI_MODEL, workersAiProvider } from "./workers-ai";

/** A model's answer larger than this is refused (the providers' own limits are far lower). */
const MAX_PROVIDER_RESPONSE_BYTES = 8 * 1024 * 1024;

export const PROVIDER_IDS = ["local", "openai", "anthropic", "workers-ai"] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

const NAMES: Record<ProviderId, string> = {
  local: "Local (offline tool router, no language model)",
  openai: "OpenAI-compatible",
  anthropic: "Anthropic",
  "workers-ai": "Workers AI",
};

interface ProviderSettings {
  apiKey: string;
  baseUrl?: string;
  model: string;
  source: "connection" | "deployment";
}

export interface ProviderInfo {
  id: ProviderId;
  name: string;
  configured: boolean;
  source: "builtin" | "connection" | "deployment" | "binding" | null;
  models: string[];
  default_model: string | null;
}

/** Whether the deployment has settings of its own for the provider. */
function deploymentConfigured(ctx: ServiceContext, id: "openai" | "anthropic"): boolean {
  const deployment = ctx.config.providers[id];
  // An OpenAI-compatible server on a private network (Ollama, vLLM) may need no key.
  return Boolean(deployment.apiKey || (id === "openai" && deployment.baseUrl));
}

/** A user's own key (an `openai` or `anthropic` connection) wins over the deployment's. */
async function settingsFor(ctx: ServiceContext, id: "openai" | "anthropic"): Promise<ProviderSettings | undefined> {
  const deployment = ctx.config.providers[id];
  const connection = await defaultConnection(ctx, id, { activeOnly: true });
  if (connection) {
    try {
      const config = await openConfig(findPlatform(id)!, connection.config, connection.uid, await ctx.secrets());
      return {
        apiKey: String(config.api_key),
        baseUrl: config.base_url as string | undefined,
        model: (config.model as string | undefined) ?? deployment.model,
        source: "connection",
      };
    } catch {
      // An unreadable connection falls through to the deployment's settings.
    }
  }
  if (deploymentConfigured(ctx, id)) {
    return { apiKey: deployment.apiKey ?? "none", baseUrl: deployment.baseUrl, model: deployment.model, source: "deployment" };
  }
  return undefined;
}

export interface ProviderSetup {
  default: ProviderId;
  providers: ProviderInfo[];
  settings: { openai?: ProviderSettings; anthropic?: ProviderSettings };
}

/** The models a step may name: any on the user's own key (its configured one listed), the allowed ones on the deployment's. */
const modelsOf = (ctx: ServiceContext, settings: ProviderSettings) =>
  settings.source === "deployment" ? allowedModels(ctx, settings.model) : [settings.model];

/** Reads every provider's settings once: the user's connections, the deployment's, the user's default. */
/**
 * Starts reading the caller's provider settings (their connections, their default) for a
 * resolveProvider to come, so a caller with other reads to make does them at the same time.
 */
export function providerSetupAhead(ctx: ServiceContext): Promise<ProviderSetup> {
  const setup = providerSetup(ctx);
  // Read ahead: a caller that fails before using it must not leave an unhandled rejection.
  setup.catch(() => undefined);
  return setup;
}

async function providerSetup(ctx: ServiceContext): Promise<ProviderSetup> {
  const [openai, anthropic] = await Promise.all([settingsFor(ctx, "openai"), settingsFor(ctx, "anthropic")]);
  const workersModel = ctx.config.providers.workersAiModel ?? DEFAULT_WORKERS_AI_MODEL;
  const ai = ctx.bindings.AI;
  const providers: ProviderInfo[] = [
    { id: "local", name: NAMES.local, configured: true, source: "builtin", models: ["local-tool-router"], default_model: "local-tool-router" },
    {
      id: "openai",
      name: NAMES.openai,
      configured: Boolean(openai),
      source: openai?.source ?? null,
      models: openai ? modelsOf(ctx, openai) : [],
      default_model: openai?.model ?? null,
    },
    {
      id: "anthropic",
      name: NAMES.anthropic,
      configured: Boolean(anthropic),
      source: anthropic?.source ?? null,
      models: anthropic ? modelsOf(ctx, anthropic) : [],
      default_model: anthropic?.model ?? null,
    },
    {
      id: "workers-ai",
      name: NAMES["workers-ai"],
      configured: Boolean(ai),
      source: ai ? "binding" : null,
      // The binding is the deployment's own: the models it allows may be named.
      models: ai ? allowedModels(ctx, workersModel) : [],
      default_model: ai ? workersModel : null,
    },
  ];
  return { default: await defaultProviderId(ctx, providers), providers, settings: { openai, anthropic } };
}

export async function listProviders(ctx: ServiceContext): Promise<{ default: ProviderId; providers: ProviderInfo[] }> {
  const { default: fallback, providers } = await providerSetup(ctx);
  return { default: fallback, providers };
}

async function defaultProviderId(ctx: ServiceContext, providers: ProviderInfo[]): Promise<ProviderId> {
  const user = await ctx.db.select({ defaultProvider: users.defaultProvider }).from(users).where(eq(users.id, ctx.actor.id)).get();
  const configured = (id: string | null | undefined) => providers.find((p) => p.id === id && p.configured)?.id;
  return configured(user?.defaultProvider) ?? configured(ctx.config.providers.defaultProvider) ?? "local";
}

/**
 * Whether a provider asked for by name could serve, without reading any credential: cheap enough
 * to refuse a bad choice before a message is stored (the turn then resolves it for real, once).
 * No name means the user's or the deployment's default, which is always one that is configured.
 */
export async function checkProviderChoice(ctx: ServiceContext, requested: string | null | undefined): Promise<void> {
  if (requested === null || requested === undefined || requested === "local") return;
  const id = PROVIDER_IDS.find((p) => p === requested);
  let configured = false;
  if (id === "workers-ai") configured = Boolean(ctx.bindings.AI);
  else if (id === "openai" || id === "anthropic") {
    configured = deploymentConfigured(ctx, id) || Boolean(await defaultConnection(ctx, id, { activeOnly: true }));
  }
  if (!configured) {
    // Only a refusal pays for the full list, to name the providers that would do.
    const { providers } = await listProviders(ctx);
    throw unconfiguredProvider(requested, Boolean(id), providers);
  }
}

function unconfiguredProvider(requested: string, known: boolean, providers: ProviderInfo[]): HubError {
  const configured = providers.filter((p) => p.configured).map((p) => p.id);
  return new HubError(
    "validation_failed",
    `Provider "${requested}" is ${known ? "not configured" : "unknown"}; configured providers: ${configured.join(", ")}.`,
    {
      errors: [{ location: "body", field: "provider", message: `Use one of: ${configured.join(", ")}.` }],
    },
  );
}

/**
 * The provider for one call: the one asked for, else the user's default, else the deployment's,
 * else local. Asking for an unknown or unconfigured provider is a 422 naming the configured ones.
 * `model` picks another model of that provider than its configured one (a workflow's llm step).
 * On the deployment's own key or binding the model must be one it allows (422, field `model`)
 * and every call is metered (429 when the caller's minute is spent); a user's own key is neither.
 * Every call, on either key, has a deadline (MODEL_CALL_TIMEOUT_SECONDS).
 */
export async function resolveProvider(
  ctx: ServiceContext,
  requested: string | null | undefined,
  model?: string,
  /** The caller's setup read ahead (providerSetupAhead), when it had other reads to make meanwhile. */
  setup: Promise<ProviderSetup> = providerSetup(ctx),
): Promise<ChatProvider> {
  const { default: fallback, providers, settings: known } = await setup;
  const id = requested ?? fallback;
  const info = providers.find((p) => p.id === id);
  if (!info?.configured) throw unconfiguredProvider(id, Boolean(info), providers);
  if (info.id === "local") return localProvider();
  const onDeployment = info.source === "deployment" || info.source === "binding";
  const configuredModel = info.id === "workers-ai" ? info.default_model! : known[info.id]!.model;
  if (onDeployment && model !== undefined) checkModelAllowed(ctx, info.id, configuredModel, model);
  const provider = withDeadline(modelProvider(ctx, info.id, known, model ?? configuredModel), ctx.config.limits.modelCallMs);
  return onDeployment ? meteredProvider(ctx, provider) : provider;
}

function modelProvider(ctx: ServiceContext, id: Exclude<ProviderId, "local">, known: ProviderSetup["settings"], modelName: string): ChatProvider {
  const policy = addressPolicyFor(ctx.config);
  switch (id) {
    case "workers-ai":
      return workersAiProvider(ctx.bindings.AI!, modelName);
    case "openai": {
      const settings = known.openai!;
      const openai = createOpenAICompatible({
        name: "openai",
        baseURL: settings.baseUrl ?? "https://api.openai.com/v1",
        apiKey: settings.apiKey,
        includeUsage: true,
        // Structured output as `response_format: {type: "json_schema"}` (OpenAI, vLLM, Ollama…).
        supportsStructuredOutputs: true,
        fetch: guardedFetch(policy, MAX_PROVIDER_RESPONSE_BYTES),
      });
      return aiSdkProvider("openai", modelName, openai(modelName));
    }
    case "anthropic": {
      const settings = known.anthropic!;
      const anthropic = createAnthropic({
        apiKey: settings.apiKey,
        ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
        fetch: guardedFetch(policy, MAX_PROVIDER_RESPONSE_BYTES),
      });
      return aiSdkProvider("anthropic", modelName, anthropic(modelName));
    }
  }
}
