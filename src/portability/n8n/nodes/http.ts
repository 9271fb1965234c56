import { isExpression, splitTemplate, templateAsJs } from "../expressions";
import type { NodeContext, NodeResult } from "../types";

type Pairs = { parameters?: { name?: string; value?: unknown }[] } | undefined;

/** n8n's name/value lists as an object with the values translated. */
function pairs(ctx: NodeContext, list: Pairs): Record<string, unknown> {
  return Object.fromEntries((list?.parameters ?? []).filter((p) => p.name).map((p) => [p.name!, ctx.value(p.value ?? "")]));
}

/** A JSON parameter (jsonBody, jsonQuery, jsonHeaders): parsed when constant, else parsed after its expressions are worked out. */
function jsonParameter(ctx: NodeContext, raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  if (!isExpression(raw)) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return ctx.computed(`JSON.parse(${templateAsJs(splitTemplate(raw.slice(1)))})`);
}

/**
 * HTTP Request (v3+) → a step of the `http_request` tool: method, URL, query, headers and a JSON or
 * raw body. n8n's output is the response body, so `$json.x` after it reads `result.body.x`; with
 * "full response", `body`, `headers` and `statusCode`. Credentials are not taken over.
 */
export function httpRequestNode(ctx: NodeContext): NodeResult {
  const p = ctx.node.parameters ?? {};
  const version = ctx.node.typeVersion ?? 1;
  const options = (p.options ?? {}) as { timeout?: number; response?: { response?: { fullResponse?: boolean; neverError?: boolean } } };
  const args: Record<string, unknown> = {
    url: ctx.value(p.url ?? ""),
    method: String((version >= 3 ? p.method : p.requestMethod) ?? "GET").toUpperCase(),
  };
  if (p.authentication && p.authentication !== "none")
    ctx.warn("Its credentials are not taken over: add the headers the API needs (a secret belongs in a connection).");
  if (p.sendQuery) args.query = p.specifyQuery === "json" ? jsonParameter(ctx, p.jsonQuery) : pairs(ctx, p.queryParameters as Pairs);
  if (p.sendHeaders) args.headers = p.specifyHeaders === "json" ? jsonParameter(ctx, p.jsonHeaders) : pairs(ctx, p.headerParameters as Pairs);
  if (p.sendBody) {
    const contentType = String(p.contentType ?? "json");
    if (contentType === "raw") {
      args.body = ctx.value(p.body ?? "");
      args.headers = { "Content-Type": String(p.rawContentType ?? "text/plain"), ...((args.headers as object) ?? {}) };
    } else {
      if (contentType !== "json") ctx.warn(`A ${contentType} body is sent as JSON.`);
      args.body = p.specifyBody === "json" ? jsonParameter(ctx, p.jsonBody) : pairs(ctx, p.bodyParameters as Pairs);
    }
  }
  if (typeof options.timeout === "number") args.timeout_seconds = Math.min(30, Math.max(1, Math.round(options.timeout / 1000)));
  const response = options.response?.response ?? {};
  if (response.neverError) args.allow_error_status = true;
  const result = `steps.${ctx.stepId}.result`;
  return {
    steps: [{ id: ctx.stepId, type: "tool", name: ctx.node.name, tool: "http_request", arguments: args }],
    output: response.fullResponse
      ? [{ base: result, aliases: { body: `${result}.body`, headers: `${result}.headers`, statusCode: `${result}.status`, statusMessage: null } }]
      : [{ base: `${result}.body` }],
  };
}
