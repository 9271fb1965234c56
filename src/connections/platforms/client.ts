import type { AddressPolicy } from "../../net/address-policy";
import { OutboundRefused, safeFetch, type SafeResponse } from "../../net/safe-fetch";
import { describeBody, retryAfterSeconds } from "./failures";
import { formBody } from "./form";
import { PlatformError, type Platform, type PlatformClient, type PlatformFailure, type PlatformRequest } from "./types";

const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

/**
 * Builds the request function every native platform tool uses: base URL (overridable, and
 * checked by the outbound guard), the platform's auth headers, JSON in and out, and one place
 * that turns HTTP failures into PlatformErrors that know whether the credentials were refused.
 */
export function platformClient<C extends Record<string, any>>(
  platform: Platform<C>,
  config: C,
  options: {
    policy: AddressPolicy;
    signal?: AbortSignal;
    idempotencyKey?: string;
    /** The connection's rate governor: asked for a slot before each request, told each answer's status and headers. */
    governor?: { acquire(): Promise<void>; report(status: number, headers: Headers): Promise<void> | void };
    /**
     * An OAuth connection's renewal: called once when the platform refuses the credentials (a 401,
     * or a reader's auth failure); the request is then sent once more with the config it returns.
     */
    onUnauthorized?: () => Promise<C>;
  },
): PlatformClient<C> {
  if (options.onUnauthorized) return renewingOnce(platform, config, options.onUnauthorized, options);
  const base = platform.baseUrl?.(config) ?? (config.base_url as string | undefined) ?? platform.defaultBaseUrl ?? "";
  return {
    config,
    async request<T>(request: PlatformRequest): Promise<T> {
      const url = new URL(base.replace(/\/$/, "") + request.path);
      for (const [key, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
      const headers = new Headers({ Accept: "application/json", ...platform.authHeaders?.(config), ...request.headers });
      // Only where the platform documents a key: elsewhere it is noise at best.
      const idempotencyHeader = platform.idempotencyHeader?.(config);
      if (idempotencyHeader && options.idempotencyKey && request.method !== "GET" && !headers.has(idempotencyHeader))
        headers.set(idempotencyHeader, options.idempotencyKey);
      let body: string | undefined;
      if (request.body !== undefined && request.encoding === "form") {
        headers.set("Content-Type", "application/x-www-form-urlencoded");
        body = formBody(request.body).toString();
      } else if (request.body !== undefined) {
        // A JSON media type of the API's own, named by the request, is kept (JSON:API's application/vnd.api+json).
        if (!request.headers?.["Content-Type"]) headers.set("Content-Type", "application/json");
        body = JSON.stringify(request.body);
      }
      let response: SafeResponse;
      await options.governor?.acquire();
      try {
        response = await safeFetch(
          url.toString(),
          { method: request.method, headers, body },
          { policy: options.policy, maxBytes: MAX_RESPONSE_BYTES, signal: options.signal },
        );
      } catch (error) {
        // A refused address stays refused; a network failure may pass.
        if (error instanceof OutboundRefused) throw new PlatformError(error.message, 0, undefined, { retryable: false });
        throw new PlatformError(`${platform.name} could not be reached: ${error instanceof Error ? error.message : String(error)}`, 0);
      }
      await options.governor?.report(response.status, response.headers);
      const text = response.text();
      let parsed: any = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON; keep the text
      }
      // The platform's reader sees 2xx answers too: some APIs report failures with 200.
      const failure = platform.readError?.(response.status, parsed);
      if (failure || response.status >= 400) throw httpFailure(platform.name, response.status, parsed, failure, response.headers.get("Retry-After"));
      if (request.responseHeaders) {
        const picked = Object.fromEntries(request.responseHeaders.map((name) => [name.toLowerCase(), response.headers.get(name)]));
        return { body: parsed, headers: picked } as T;
      }
      return parsed as T;
    },
  };
}

/**
 * "<Platform> answered <status>: <the platform's message>" (DESIGN §5), with what the platform's
 * reader learned: its error code, whether trying again may help, how long it asked to wait.
 */
function httpFailure(platformName: string, status: number, body: any, failure: PlatformFailure | undefined, retryAfter: string | null): PlatformError {
  const detail = failure?.message ?? describeBody(body);
  const message = `${platformName} answered ${failure?.answer ?? status}${detail ? `: ${detail}` : ""}`;
  const authFailure =
    failure?.authFailure !== undefined
      ? (failure.authFailure ?? undefined)
      : status === 401
        ? /expired/i.test(JSON.stringify(body ?? ""))
          ? "expired"
          : "error"
        : undefined;
  // Both the header and the body may say how long to wait (Discord, Telegram): the longer wait is the safe one.
  const waits = [retryAfterSeconds(retryAfter), failure?.retryAfterSeconds].filter((s): s is number => s !== undefined);
  return new PlatformError(message, status, authFailure, {
    code: failure?.code,
    retryable: failure?.retryable,
    retryAfterSeconds: waits.length ? Math.max(...waits) : undefined,
  });
}

/**
 * A client that, the first time the platform refuses its credentials, renews them (an OAuth
 * refresh) and sends that request once more; later requests use the renewed config. A refused
 * request did nothing on the platform, so sending it again is safe.
 */
function renewingOnce<C extends Record<string, any>>(
  platform: Platform<C>,
  config: C,
  renew: () => Promise<C>,
  options: Omit<Parameters<typeof platformClient<C>>[2], "onUnauthorized">,
): PlatformClient<C> {
  let client = platformClient(platform, config, { ...options, onUnauthorized: undefined });
  let renewed = false;
  return {
    get config() {
      return client.config;
    },
    async request<T>(request: PlatformRequest): Promise<T> {
      try {
        return await client.request<T>(request);
      } catch (error) {
        if (renewed || !(error instanceof PlatformError) || (error.status !== 401 && !error.authFailure)) throw error;
        renewed = true;
        client = platformClient(platform, await renew(), { ...options, onUnauthorized: undefined });
        try {
          return await client.request<T>(request);
        } catch (retried) {
          // Refused with a token just renewed: not the token's age, so not "expired" (which only a refused renewal is).
          if (retried instanceof PlatformError && retried.authFailure === "expired")
            throw new PlatformError(retried.message, retried.status, "error", retried.details);
          throw retried;
        }
      }
    },
  };
}
