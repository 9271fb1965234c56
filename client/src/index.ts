// The hub's typed client: openapi-fetch over the types generated from the hub's OpenAPI document
// (schema.d.ts, `npm run client:generate`). Every path, parameter, body and answer is typed.
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";

/** A schema of the API by name: `Schema<"Workflow">`, `Schema<"Execution">`, `Schema<"Problem">`. */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];

export type HubClient = Client<paths>;

export interface HubClientOptions {
  /** The hub's origin, e.g. `http://127.0.0.1:8787` (the API's paths start with /v1). */
  baseUrl: string;
  /** An API key, an OAuth access token or a sign-in JWT; leave out for the public operations (sign-in). */
  token?: string;
  /** The workspace to act in (the `Hub-Workspace` header); the credential's own when left out. */
  workspace?: string | number;
  /** A fetch of your own (tests, proxies); the global one otherwise. */
  fetch?: (request: Request) => Promise<Response>;
}

/** A client for one hub, credential and workspace. Calls answer `{ data, error, response }`; `error` is the problem+json body. */
export function createHubClient({ baseUrl, token, workspace, fetch }: HubClientOptions): HubClient {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (workspace !== undefined && workspace !== "") headers["Hub-Workspace"] = String(workspace);
  return createClient<paths>({ baseUrl, headers, ...(fetch ? { fetch } : {}) });
}
