import type { AddressPolicy } from "../../net/address-policy";
import { OutboundRefused, safeFetch, type SafeResponse } from "../../net/safe-fetch";
import { PlatformError, type Platform, type PlatformClient, type PlatformRequest } from "./types";

const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

/**
 * Builds the request function every native platform tool uses: base URL (overridable, and
 * checked by the outbound guard), the platform's auth headers, JSON in and out, and one place
 * that turns HTTP failures into PlatformErrors that know whether the credentials were refused.
 */
export function platformClient<C extends Record<string, any>>(
  platform: Platform<C>,
  config: C,
  options: { policy: AddressPolicy; signal?: AbortSignal; idempotencyKey?: string },
): PlatformClient<C> {
  const base = platform.baseUrl?.(config) ?? (config.base_url as string | undefined) ?? platform.defaultBaseUrl ?? "";
  return {
    config,
    async request<T>(request: PlatformRequest): Promise<T> {
      const url = new URL(base.replace(/\/$/, "") + request.path);
      for (const [key, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
      const headers = new Headers({ Accept: "application/json", ...platform.authHeaders?.(config), ...request.headers });
      if (options.idempotencyKey && request.method !== "GET" && !headers.has("Idempotency-Key")) headers.set("Idempotency-Key", options.idempotencyKey);
      let body: string | undefined;
      if (request.body !== undefined) {
        headers.set("Content-Type", "application/json");
        body = JSON.stringify(request.body);
      }
      let response: SafeResponse;
      try {
        response = await safeFetch(
          url.toString(),
          { method: request.method, headers, body },
          { policy: options.policy, maxBytes: MAX_RESPONSE_BYTES, signal: options.signal },
        );
      } catch (error) {
        if (error instanceof OutboundRefused) throw new PlatformError(error.message, 0);
        throw new PlatformError(`${platform.name} could not be reached: ${error instanceof Error ? error.message : String(error)}`, 0);
      }
      const text = response.text();
      let parsed: any = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON; keep the text
      }
      const special = platform.inspect?.(response.status, parsed);
      if (special) throw special;
      if (response.status >= 400) throw httpFailure(platform.name, response.status, parsed);
      return parsed as T;
    },
  };
}

function httpFailure(platformName: string, status: number, body: any): PlatformError {
  const detail = describeBody(body);
  const message = `${platformName} answered ${status}${detail ? `: ${detail}` : ""}`;
  if (status === 401) return new PlatformError(message, status, /expired/i.test(JSON.stringify(body ?? "")) ? "expired" : "error");
  return new PlatformError(message, status);
}

function describeBody(body: any): string {
  if (body === null || body === undefined) return "";
  if (typeof body === "string") return body.slice(0, 300);
  const candidate = body.message ?? body.error?.message ?? body.error_description ?? body.error ?? body.detail ?? body.title ?? body.description;
  return typeof candidate === "string" ? candidate.slice(0, 300) : JSON.stringify(body).slice(0, 300);
}
