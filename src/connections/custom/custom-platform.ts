// A stored custom platform as a Platform like the declared ones: its config asks for the
// credential its auth needs, its tools turn validated arguments into the operation's request, and
// calls go through the same client (outbound address checks, governor, error reading).

import { z } from "@hono/zod-openapi";
import { effectOfMethod } from "../../core/tool-effects";
import type { CustomPlatformRow } from "../../db/schema";
import { UserSchemaValidator } from "../../lib/user-json-schema";
import type { PlatformOAuth } from "../platforms/oauth-spec";
import { pathSegment } from "../platforms/path-segment";
import { baseUrlField, secret, type AuthKind, type Platform, type PlatformTool } from "../platforms/types";
import { credentialHeadersOf, withoutCredentialHeaders } from "./credential-headers";
import type { CustomAuth, ToolDeclaration } from "./declarations";

type CustomConfig = Record<string, any>;

const oauthOverride = (what: string) =>
  z
    .string()
    .url()
    .max(2000)
    .optional()
    .meta({ description: `Override the document's ${what}.` });

/** The connection's config: the credential the auth needs, plus `base_url` to override the document's server. */
function configFor(auth: CustomAuth): { config: z.ZodType; secretFields: string[]; authKind: AuthKind } {
  const base = { base_url: baseUrlField };
  switch (auth.kind) {
    case "api_key":
      return {
        config: z.object({ ...base, api_key: secret(`The API key, sent as ${auth.in === "header" ? "the header" : "the query parameter"} ${auth.name}.`) }),
        secretFields: ["api_key"],
        authKind: "api_key",
      };
    case "bearer":
      return { config: z.object({ ...base, token: secret("The bearer token.") }), secretFields: ["token"], authKind: "bearer_token" };
    case "basic":
      return {
        config: z.object({ ...base, username: z.string().min(1).max(500), password: secret("The password.") }),
        secretFields: ["password"],
        authKind: "basic",
      };
    case "oauth2":
      return {
        config: z.object({
          ...base,
          client_id: z.string().min(1).max(500).meta({ description: "Your app's client id at the provider." }),
          client_secret: z.string().min(1).max(4096).optional().meta({ description: "Your app's client secret.", writeOnly: true, "x-secret": true }),
          scopes: z.array(z.string().min(1).max(200)).max(50).optional().meta({ description: "Scopes to ask for; default: every scope the document lists." }),
          authorize_url: oauthOverride("authorization URL"),
          token_url: oauthOverride("token URL"),
          token_auth: z.enum(["client_secret_post", "client_secret_basic"]).optional(),
        }),
        secretFields: ["client_secret"],
        authKind: "oauth2",
      };
    default:
      return { config: z.object(base), secretFields: [], authKind: "none" };
  }
}

function authHeadersFor(auth: CustomAuth): ((config: CustomConfig) => Record<string, string>) | undefined {
  switch (auth.kind) {
    case "api_key":
      return auth.in === "header" ? (config) => ({ [auth.name]: String(config.api_key) }) : undefined;
    case "bearer":
      return (config) => ({ Authorization: `Bearer ${config.token}` });
    case "basic":
      return (config) => ({ Authorization: `Basic ${base64(`${config.username}:${config.password}`)}` });
    case "oauth2":
      return (config) => ({ Authorization: `Bearer ${config.access_token}` });
    default:
      return undefined;
  }
}

/**
 * The tool input: the operation's JSON Schema, checked in bounded time (DESIGN §5), plus the
 * connection choice. The validator is compiled at the first call and lives as long as the
 * platform does (compiled.ts keeps platforms per isolate, bounded by their size).
 */
function inputFor(declaration: ToolDeclaration): z.ZodType {
  const schema = declaration.input_schema;
  const withChoice = {
    ...schema,
    properties: {
      ...(schema.properties as object),
      connection_id: {
        type: "integer",
        exclusiveMinimum: 0,
        description: "Which of your connections to use; defaults to the most recently created active one.",
      },
    },
  };
  let validator: UserSchemaValidator | undefined;
  return z
    .custom<Record<string, unknown>>((value) => typeof value === "object" && value !== null && !Array.isArray(value), "Arguments must be an object.")
    .superRefine((value, ctx) => {
      validator ??= new UserSchemaValidator(withChoice);
      const result = validator.validate(value);
      if (result.valid) return;
      const errors = result.errors.filter((e) => e.keyword !== "properties" || result.errors.length === 1);
      for (const error of errors.slice(0, 20))
        ctx.addIssue({ code: "custom", message: error.error, path: error.instanceLocation.replace(/^#\/?/, "").split("/").filter(Boolean) });
    })
    .meta(withChoice);
}

/** The request an operation's tool sends for these arguments. */
export function requestFor(declaration: ToolDeclaration, args: Record<string, unknown>, auth: CustomAuth, config: CustomConfig) {
  let path = declaration.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  const reserved = credentialHeadersOf(auth);
  for (const parameter of declaration.parameters) {
    const value = args[parameter.property];
    if (value === undefined || value === null) continue;
    if (parameter.in === "header" && reserved.has(parameter.name.toLowerCase())) continue;
    const text = (v: unknown) => (typeof v === "object" ? JSON.stringify(v) : String(v));
    if (parameter.in === "path") path = path.replaceAll(`{${parameter.name}}`, pathSegment(parameter.name, text(value)));
    else if (parameter.in === "header") headers[parameter.name] = text(value).replace(/[\r\n]/g, " ");
    else if (Array.isArray(value) && parameter.explode) for (const item of value) query.append(parameter.name, text(item));
    else query.append(parameter.name, Array.isArray(value) ? value.map(text).join(",") : text(value));
  }
  if (auth.kind === "api_key" && auth.in === "query") query.set(auth.name, String(config.api_key));
  const search = query.toString();
  return {
    method: declaration.method,
    path: search ? `${path}?${search}` : path,
    headers,
    body: declaration.body && args.body !== undefined ? args.body : undefined,
  };
}

/** The Platform a stored custom platform is, for connections, the tool catalog and tool calls. */
export function platformOf(row: Pick<CustomPlatformRow, "uid" | "name" | "description" | "serverUrl" | "auth" | "tools">): Platform {
  const auth = row.auth as CustomAuth;
  const { config, secretFields, authKind } = configFor(auth);
  const reserved = credentialHeadersOf(auth);
  const declarations = (row.tools as ToolDeclaration[]).map((declaration) => withoutCredentialHeaders(declaration, reserved));
  const tools: PlatformTool[] = declarations.map((declaration) => ({
    action: declaration.action,
    title: declaration.title,
    description: declaration.description,
    effect: effectOfMethod(declaration.method),
    input: inputFor(declaration),
    run: (client, args) => client.request(requestFor(declaration, args as Record<string, unknown>, auth, client.config)),
  }));
  const oauth: PlatformOAuth | undefined =
    auth.kind === "oauth2"
      ? { authorizeUrl: auth.authorize_url, tokenUrl: auth.token_url, defaultScopes: auth.scopes, tokenField: "access_token", deploymentClient: false }
      : undefined;
  return {
    id: row.uid,
    name: row.name,
    description: row.description || `Made from the OpenAPI document ${row.name}.`,
    category: "developer",
    authKind,
    config: config as z.ZodType<any>,
    secretFields,
    defaultBaseUrl: row.serverUrl,
    authHeaders: authHeadersFor(auth),
    tools,
    ...(oauth ? { oauth } : {}),
  };
}

/** Base64 of the text's UTF-8 bytes (RFC 7617 credentials may hold any character). */
const base64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
