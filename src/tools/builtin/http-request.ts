import { z } from "@hono/zod-openapi";
import { describeBody, retryAfterSeconds } from "../../connections/platforms/failures";
import { PlatformError } from "../../connections/platforms/types";
import { OutboundRefused, safeFetch } from "../../net/safe-fetch";
import { ToolError, defineBuiltin } from "../types";
import { atMostEntries, shallowJson } from "./bounded-json";

const MAX_RESPONSE_BYTES = 1024 * 1024;
/** Far more than any API needs; each entry is work for the URL and Headers classes. */
const MAX_HEADERS = 100;
const MAX_QUERY_PARAMETERS = 100;

export const httpRequest = defineBuiltin({
  name: "http_request",
  // Any method to any URL: as with an MCP tool that says nothing, a call that may change something is a write.
  effect: "write",
  title: "HTTP request",
  description:
    "Calls any public HTTP(S) URL and returns status, headers and body (JSON parsed when possible). A status of 400 or more fails the call (in a workflow, 408, 425, 429 and 5xx are retried, other 4xx are not) unless `allow_error_status` is true: then it returns {ok: false, status, …}. Private, loopback (on production), link-local and cloud metadata addresses are refused, redirects are re-checked, and responses are capped at 1 MiB.",
  input: z.object({
    url: z.string().url().max(4096),
    method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]).default("GET"),
    headers: z.record(z.string().max(200), z.string().max(8192)).optional().refine(atMostEntries(MAX_HEADERS), `At most ${MAX_HEADERS} headers.`),
    query: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .optional()
      .refine(atMostEntries(MAX_QUERY_PARAMETERS), `At most ${MAX_QUERY_PARAMETERS} query parameters.`),
    body: shallowJson().optional().describe("Sent as JSON unless it is a string."),
    timeout_seconds: z.number().min(1).max(30).default(15),
    allow_error_status: z.boolean().default(false).describe("Return a status of 400 or more as {ok: false, status, …} instead of failing."),
  }),
  async run(ctx, args) {
    const url = withQuery(new URL(args.url), args.query ?? {});
    const headers = new Headers(args.headers);
    // A workflow step's call carries its idempotency key unless the step set one itself.
    if (ctx.idempotencyKey && !headers.has("Idempotency-Key")) headers.set("Idempotency-Key", ctx.idempotencyKey);
    let body: string | undefined;
    if (args.body !== undefined && args.method !== "GET" && args.method !== "HEAD") {
      body = typeof args.body === "string" ? args.body : JSON.stringify(args.body);
      if (typeof args.body !== "string" && !headers.has("Content-Type")) headers.set("Content-Type", "application/json");
    }
    let answer: { status: number; ok: boolean; url: string; headers: Record<string, string>; body: unknown };
    try {
      const response = await safeFetch(
        url.toString(),
        { method: args.method, headers, body },
        {
          policy: ctx.policy,
          maxBytes: MAX_RESPONSE_BYTES,
          timeoutMs: args.timeout_seconds * 1000,
          signal: ctx.signal,
        },
      );
      const text = response.text();
      let parsed: unknown = text;
      if ((response.headers.get("Content-Type") ?? "").includes("json")) {
        try {
          parsed = JSON.parse(text);
        } catch {
          // keep the text
        }
      }
      answer = { status: response.status, ok: response.status < 400, url: response.url, headers: Object.fromEntries(response.headers), body: parsed };
    } catch (error) {
      if (error instanceof OutboundRefused) throw new ToolError(error.message);
      if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
        throw new ToolError("The request timed out or was cancelled.");
      throw new ToolError(`The request failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (answer.ok || args.allow_error_status) return answer;
    // Failed like a platform call: "<host> answered 404: …", permanent or transient by its status.
    const detail = describeBody(answer.body);
    throw new PlatformError(`${new URL(answer.url).host} answered ${answer.status}${detail ? `: ${detail}` : ""}`, answer.status, undefined, {
      retryAfterSeconds: retryAfterSeconds(answer.headers["retry-after"]),
    });
  },
});

/**
 * The URL with `query` set over its own parameters. Built in one go: url.searchParams.set
 * re-serialises the whole query string on every call.
 */
function withQuery(url: URL, query: Record<string, string | number | boolean>): URL {
  const names = new Set(Object.keys(query));
  if (names.size === 0) return url;
  const kept = [...url.searchParams].filter(([name]) => !names.has(name));
  url.search = new URLSearchParams([...kept, ...Object.entries(query).map(([name, value]) => [name, String(value)])]).toString();
  return url;
}
