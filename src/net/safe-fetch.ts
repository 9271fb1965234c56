import { checkHost, type AddressPolicy } from "./address-policy";
import { ResolutionRefused, checkResolvedHost } from "./dns";

/** A URL or response the guard refused; the message is safe to show the user. */
export class OutboundRefused extends Error {}

const SAFE_CROSS_ORIGIN_HEADERS = new Set(["accept", "accept-language", "content-type", "user-agent"]);

/** Sent on every outbound request that sets none; some APIs (Resend, Discord) refuse requests without one. */
export const USER_AGENT = "AgentAutomationHub/1.0 (+https://github.com/agent-automation-hub)";

export interface SafeFetchOptions {
  policy: AddressPolicy;
  /** Largest response body read, in bytes; more is an error (default 1 MiB). */
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface SafeResponse {
  status: number;
  headers: Headers;
  url: string;
  body: Uint8Array;
  text(): string;
}

export function checkUrl(raw: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefused(`Not an absolute URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new OutboundRefused("Only http and https URLs are allowed.");
  if (url.username || url.password) throw new OutboundRefused("URLs must not carry credentials; use headers.");
  const verdict = checkHost(url.hostname, policy);
  if (!verdict.ok) throw new OutboundRefused(`Refused ${url.hostname}: ${verdict.reason}.`);
  return url;
}

/** checkUrl, then the host name's addresses too when the policy resolves names. */
export async function checkUrlResolved(raw: string, policy: AddressPolicy): Promise<URL> {
  const url = checkUrl(raw, policy);
  try {
    await checkResolvedHost(url.hostname, policy);
  } catch (error) {
    if (error instanceof ResolutionRefused) throw new OutboundRefused(error.message);
    throw error;
  }
  return url;
}

/**
 * fetch for user-given URLs: every hop (redirects included) passes the address policy, the
 * body is read up to a cap, and the whole exchange has a deadline.
 */
export async function safeFetch(raw: string, init: RequestInit, options: SafeFetchOptions): Promise<SafeResponse> {
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const deadline = AbortSignal.timeout(options.timeoutMs ?? 15_000);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  let url = await checkUrlResolved(raw, options.policy);
  const initialHeaders = new Headers(init.headers);
  if (!initialHeaders.has("User-Agent")) initialHeaders.set("User-Agent", USER_AGENT);
  let requestInit: RequestInit = { ...init, headers: initialHeaders, redirect: "manual", signal };
  for (let hop = 0; ; hop++) {
    const response = await fetch(url, requestInit);
    const location = response.headers.get("Location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      if (hop >= (options.maxRedirects ?? 5)) throw new OutboundRefused("Too many redirects.");
      const next = await checkUrlResolved(new URL(location, url).toString(), options.policy);
      // Like browsers: 303 (and 301/302 after POST) become GET without a body. Credentials stay on
      // one origin: another origin gets only headers that can carry none, whatever their names.
      const becomesGet =
        response.status === 303 || ((response.status === 301 || response.status === 302) && requestInit.method && requestInit.method !== "GET");
      let headers = new Headers(requestInit.headers);
      if (next.origin !== url.origin) headers = new Headers([...headers].filter(([name]) => SAFE_CROSS_ORIGIN_HEADERS.has(name.toLowerCase())));
      requestInit = { ...requestInit, headers, ...(becomesGet ? { method: "GET", body: undefined } : {}) };
      url = next;
      continue;
    }
    const body = await readCapped(response, maxBytes);
    return { status: response.status, headers: response.headers, url: url.toString(), body, text: () => new TextDecoder().decode(body) };
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get("Content-Length"));
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new OutboundRefused(`The response is larger than ${maxBytes} bytes.`);
  }
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new OutboundRefused(`The response is larger than ${maxBytes} bytes.`);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * A fetch for libraries that make their own requests (the MCP SDK, model SDKs): every request
 * URL passes the address policy first. Their redirects are theirs to refuse (both follow only
 * same-origin ones or none).
 */
export function guardedFetch(policy: AddressPolicy, maxBytes?: number): typeof fetch {
  return async (input, init) => {
    await checkUrlResolved(input instanceof Request ? input.url : String(input), policy);
    // Redirects are not followed here: a library that follows them calls this fetch again, checked.
    const response = await fetch(input, { ...init, redirect: "manual" });
    return maxBytes && response.body ? capBody(response, maxBytes) : response;
  };
}

/** The same response, whose body stream errors once more than `maxBytes` have passed. */
function capBody(response: Response, maxBytes: number): Response {
  let seen = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) controller.error(new OutboundRefused(`The response is larger than ${maxBytes} bytes.`));
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body!.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
}
