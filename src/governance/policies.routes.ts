import { z } from "@hono/zod-openapi";
import { authedRoute, createRouter } from "../http/router";
import { accountRules, setAccountRules } from "./account-policies";
import { DEFAULT_RULES, MAX_RULES, PolicyRulesSchema } from "./policies";

const Rules = z.object({ rules: PolicyRulesSchema }).strict().openapi("ToolPolicies");

const RULES_DOC = `The first rule that matches a call decides whether it runs (\`allow\`), waits for a person (\`ask\`) or is refused (\`deny\`). An agent's \`agent_config.tool_policies\` come first, then these, then the default ${JSON.stringify(DEFAULT_RULES)}; a call no rule matches runs. At most ${MAX_RULES} rules. See docs/governance.md.`;

const read = authedRoute("data:read", {
  method: "get",
  path: "/me/tool-policies",
  tags: ["Account"],
  summary: "The account's tool policy rules",
  description: RULES_DOC,
  responses: { 200: { description: "The rules, in the order they are tried", content: { "application/json": { schema: Rules } } } },
});

const write = authedRoute(
  "data:write",
  {
    method: "put",
    path: "/me/tool-policies",
    tags: ["Account"],
    summary: "Replace the account's tool policy rules",
    description: RULES_DOC,
    request: { body: { required: true, content: { "application/json": { schema: Rules } } } },
    responses: { 200: { description: "The rules as stored", content: { "application/json": { schema: Rules } } } },
  },
  { role: "admin" },
);

export const toolPolicyRoutes = createRouter()
  .openapi(read, async (c) => c.json({ rules: await accountRules(c.var.ctx) }, 200))
  .openapi(write, async (c) => c.json({ rules: await setAccountRules(c.var.ctx, c.req.valid("json").rules) }, 200));
