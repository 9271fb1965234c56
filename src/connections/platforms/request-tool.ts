import type { z } from "@hono/zod-openapi";
import type { ToolEffect } from "../../core/tool-effects";
import { pathSegment } from "./path-segment";
import { PlatformError, type PlatformRequest, type PlatformTool, platformTool } from "./types";

type Args = Record<string, unknown>;
type Query = PlatformRequest["query"];

/**
 * A tool that is one HTTP request, declared rather than written: the path's `{placeholders}` are
 * filled from the arguments of that name, or else the connection's (non-secret) config field; the other arguments go to the query (GET, DELETE) or
 * the body (POST, PUT, PATCH) unless `query` or `body` say otherwise; `result` shapes the answer.
 * A tool that needs logic (two calls, a fallback, a computed body) keeps a `run` of its own.
 */
export interface RequestToolSpec<S extends z.ZodType> {
  action: string;
  title: string;
  description: string;
  /** What a call does, declared by each tool (a POST may only read, as a search does). */
  effect: ToolEffect;
  input: S;
  method: PlatformRequest["method"];
  /**
   * Appended to the base URL, e.g. "/v1/customers/{customer_id}", or a function of the arguments
   * that picks one such template (a cursor that is a path segment). Each value is URL-encoded as one
   * segment; "." and ".." are refused. Never name a secret field.
   */
  path: string | ((args: z.infer<S>) => string);
  /** The query: these argument names, or a function of the arguments. */
  query?: readonly string[] | ((args: z.infer<S>) => Query);
  /** The body: a function of the arguments, or "none"; by default the arguments left after path and query. */
  body?: "none" | ((args: z.infer<S>) => unknown);
  /** "form" for APIs that take application/x-www-form-urlencoded. */
  encoding?: "json" | "form";
  headers?: Record<string, string>;
  /** What the tool returns, from the platform's answer (default: the answer as it is). */
  result?: (answer: any, args: z.infer<S>) => unknown;
}

const PLACEHOLDER = /\{(\w+)\}/g;

export function requestTool<C = any, S extends z.ZodType = z.ZodType>(spec: RequestToolSpec<S>): PlatformTool<C, S> {
  const reads = spec.method === "GET" || spec.method === "DELETE";
  return platformTool<C, S>({
    action: spec.action,
    title: spec.title,
    description: spec.description,
    effect: spec.effect,
    input: spec.input,
    async run(client, parsed) {
      const args = (parsed ?? {}) as Args;
      const template = typeof spec.path === "function" ? spec.path(parsed) : spec.path;
      const inPath = new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]!));
      const path = template.replace(PLACEHOLDER, (_, name: string) => {
        // An argument of that name, else the connection's config field (Mailgun's domain, Twilio's account).
        const value = args[name] ?? (client.config as Args)[name];
        if (value === undefined || value === null || value === "") throw new PlatformError(`Give \`${name}\`.`, 400);
        // One segment, never a dot segment: Sheets' range ".." would otherwise read the spreadsheet itself.
        return pathSegment(name, String(value));
      });
      const rest = Object.fromEntries(Object.entries(args).filter(([name, value]) => !inPath.has(name) && value !== undefined));
      const queryNames = Array.isArray(spec.query) ? new Set<string>(spec.query) : undefined;
      const query: Query =
        typeof spec.query === "function" ? spec.query(parsed) : queryNames ? pick(rest, (name) => queryNames.has(name)) : reads ? (rest as Query) : undefined;
      const body =
        typeof spec.body === "function" ? spec.body(parsed) : spec.body === "none" || reads ? undefined : pick(rest, (name) => !queryNames?.has(name));
      const answer = await client.request({ method: spec.method, path, query, body, encoding: spec.encoding, headers: spec.headers });
      return spec.result ? spec.result(answer, parsed) : answer;
    },
  });
}

function pick(values: Args, keep: (name: string) => boolean): Record<string, any> {
  return Object.fromEntries(Object.entries(values).filter(([name]) => keep(name)));
}
