import { z } from "@hono/zod-openapi";
import { baseUrlField, definePlatform, secret } from "./types";

type ProviderConfig = { api_key: string; base_url?: string; model?: string };

const providerConfig = (keyHelp: string, modelExample: string) =>
  z.object({
    api_key: secret(keyHelp),
    base_url: baseUrlField,
    model: z
      .string()
      .max(200)
      .optional()
      .meta({ description: `Default model, e.g. ${modelExample}.` }),
  });

/** A user's own OpenAI-compatible key (OpenAI, Groq, Together, Ollama, vLLM…); serves their chats. */
export const openai = definePlatform<ProviderConfig>({
  id: "openai",
  name: "OpenAI-compatible model provider",
  description: "Bring your own key for OpenAI or any OpenAI-compatible endpoint (set base_url); your conversations then use it.",
  category: "ai",
  authKind: "api_key",
  config: providerConfig("The provider's API key.", "gpt-4o-mini"),
  secretFields: ["api_key"],
  defaultBaseUrl: "https://api.openai.com/v1",
  authHeaders: (config) => ({ Authorization: `Bearer ${config.api_key}` }),
  async test(client) {
    const models = await client.request<{ data: { id: string }[] }>({ method: "GET", path: "/models" });
    return `Connected; ${models.data.length} model(s) available.`;
  },
  tools: [],
});

export const anthropic = definePlatform<ProviderConfig>({
  id: "anthropic",
  name: "Anthropic model provider",
  description: "Bring your own Anthropic API key; your conversations then use it.",
  category: "ai",
  authKind: "api_key",
  config: providerConfig("An Anthropic API key (sk-ant-…).", "claude-sonnet-4-5"),
  secretFields: ["api_key"],
  defaultBaseUrl: "https://api.anthropic.com/v1",
  authHeaders: (config) => ({ "x-api-key": config.api_key, "anthropic-version": "2023-06-01" }),
  async test(client) {
    const models = await client.request<{ data: { id: string }[] }>({ method: "GET", path: "/models" });
    return `Connected; ${models.data.length} model(s) available.`;
  },
  tools: [],
});
