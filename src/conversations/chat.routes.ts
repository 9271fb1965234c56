import { z } from "@hono/zod-openapi";
import { authedRoute, createRouter } from "../http/router";
import { listProviders } from "../llm/providers";
import { chatDirectly } from "./direct-chat";
import { MAX_MESSAGE_CHARS } from "./schemas";

const ProviderSchema = z
  .object({
    id: z.enum(["local", "openai", "anthropic", "workers-ai"]),
    name: z.string(),
    configured: z.boolean(),
    source: z
      .enum(["builtin", "connection", "deployment", "binding"])
      .nullable()
      .openapi({ description: "Where its settings come from: your own connection wins over the deployment's." }),
    models: z.array(z.string()).openapi({
      description:
        "The models an llm step may name: on the deployment's own key or binding only these (its configured model and ALLOWED_MODELS); on your own key, any.",
    }),
    default_model: z.string().nullable(),
  })
  .openapi("Provider");

const providers = authedRoute("data:read", {
  method: "get",
  path: "/chat/providers",
  tags: ["Chat"],
  summary: "Model providers",
  description:
    "Every provider, whether it is configured for you and with which models, and your default (your default_provider, else the deployment's DEFAULT_PROVIDER, else local).",
  responses: {
    200: { description: "Providers", content: { "application/json": { schema: z.object({ default: z.string(), providers: z.array(ProviderSchema) }) } } },
  },
});

const direct = authedRoute("workflow:execute", {
  method: "post",
  path: "/chat/test",
  tags: ["Chat"],
  summary: "Test direct response generation (no tools)",
  description:
    "Sends one message straight to the provider, without tools or history, and returns its answer. Nothing is stored but its line in the usage ledger (GET /v1/usage), and the account's budget applies (409 `budget_exceeded` once reached). On the deployment's own key or binding each call counts against your model calls per minute (MODEL_RATE_LIMIT_PER_MINUTE): past it, 429 with Retry-After; your own connection is not counted.",
  request: {
    body: {
      required: true,
      content: {
        "application/json": { schema: z.object({ content: z.string().trim().min(1).max(MAX_MESSAGE_CHARS), provider: z.string().max(50).nullish() }) },
      },
    },
  },
  responses: {
    200: {
      description: "The provider's answer",
      content: { "application/json": { schema: z.object({ content: z.string(), provider: z.string(), model: z.string(), tokens_used: z.number().int() }) } },
    },
    502: { description: "The provider failed." },
  },
});

export const chatRoutes = createRouter()
  .openapi(providers, async (c) => c.json(await listProviders(c.var.ctx), 200))
  .openapi(direct, async (c) => c.json(await chatDirectly(c.var.ctx, c.req.valid("json"), c.req.raw.signal), 200));
