// What a custom platform keeps from its OpenAPI document (DESIGN §5 "Custom platforms"): the auth
// its securitySchemes give, and per operation how a tool call becomes an HTTP request. Stored as
// JSON in custom_platforms; the document itself is not kept.

import type { JsonSchema } from "../../lib/json-schema";

/** Where a connection's credential goes, from the document's first usable security scheme. */
export type CustomAuth =
  | { kind: "none" }
  | { kind: "api_key"; scheme: string; in: "header" | "query"; name: string }
  | { kind: "bearer"; scheme: string }
  | { kind: "basic"; scheme: string }
  | { kind: "oauth2"; scheme: string; authorize_url: string; token_url: string; scopes: string[] };

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One operation parameter: `property` is its name in the tool's input (the parameter's own name unless two locations share it). */
export interface ParameterDeclaration {
  name: string;
  in: "path" | "query" | "header";
  property: string;
  required: boolean;
  /** An array query parameter sent as repeated keys (`tags=a&tags=b`, OpenAPI's default form+explode) rather than comma-joined. */
  explode?: boolean;
}

export interface ToolDeclaration {
  /** The tool name's suffix: the operationId in snake_case (or method + path when it has none). */
  action: string;
  operation_id: string;
  title: string;
  description: string;
  method: HttpMethod;
  /** The path template, `{name}` for path parameters, appended to the base URL. */
  path: string;
  parameters: ParameterDeclaration[];
  /** A JSON request body, sent from the input's `body` property. */
  body: { required: boolean } | null;
  input_schema: JsonSchema;
}

/** What a document yields before it is stored. */
export interface PlatformDeclaration {
  name: string;
  description: string;
  openapi_version: string;
  server_url: string;
  auth: CustomAuth;
  tools: ToolDeclaration[];
}

/** Custom platform ids: `cp_` and 8 lowercase letters or digits, so they never meet a built-in platform's id. */
export const CUSTOM_PLATFORM_ID = /^cp_[a-z0-9]{8}$/;
export const isCustomPlatformId = (id: string) => CUSTOM_PLATFORM_ID.test(id);

/** A custom platform tool name split into platform id and action (`cp_ab12cd34_find_pets_by_status`). */
export function splitCustomToolName(name: string): { platformId: string; action: string } | undefined {
  const match = name.match(/^(cp_[a-z0-9]{8})_([a-z0-9_]+)$/);
  return match ? { platformId: match[1]!, action: match[2]! } : undefined;
}

/** Config fields that may hold a secret in any custom platform's connection, for masking without the declaration at hand. */
export const CUSTOM_SECRET_FIELDS = ["api_key", "token", "password", "client_secret"] as const;
