// Reads an OpenAPI 3.0/3.1 document into a custom platform's declarations (DESIGN §5 "Custom
// platforms"). Its local `$ref`s are resolved by local-refs.ts in time linear in its size (nothing
// is fetched; why not @scalar/openapi-parser's `dereference` is said there); everything read from
// it is bounded here. Full validation against the OpenAPI meta-schema (the parser's `validate`) is
// not used: it compiles Ajv validators with `new Function`, which Workers refuse in production, so
// the parts the hub uses are checked by hand.

import { HubError, type FieldError } from "../../core/errors";
import type { JsonSchema } from "../../lib/json-schema";
import { schemaProblems } from "../../lib/user-json-schema";
import type { AddressPolicy } from "../../net/address-policy";
import { checkUrl, OutboundRefused } from "../../net/safe-fetch";
import { credentialHeadersOf } from "./credential-headers";
import type { CustomAuth, HttpMethod, ParameterDeclaration, PlatformDeclaration, ToolDeclaration } from "./declarations";
import { DocumentBudget, SchemaBudget, toInputSchema } from "./input-schema";
import { resolveLocalRefs } from "./local-refs";
import { utf8Bytes } from "./utf8-bytes";

export const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;
export const MAX_OPERATIONS = 500;
/**
 * The stored declarations of one platform, as JSON in UTF-8 bytes: D1 refuses a string or row over
 * 2,000,000 bytes, so this leaves room for the row's other columns.
 */
export const MAX_DECLARATION_BYTES = 1_900_000;
const TOOL_NAME_ROOM = 64 - "cp_12345678_".length;

const METHODS: Record<string, HttpMethod> = { get: "GET", post: "POST", put: "PUT", patch: "PATCH", delete: "DELETE" };
/** Methods OpenAPI knows that no tool is made for (they still count against MAX_OPERATIONS). */
const OTHER_METHODS = ["head", "options", "trace"];

type Obj = Record<string, any>;
const isObject = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);

const invalid = (message: string, errors: FieldError[] = []) =>
  new HubError("validation_failed", message, { errors: errors.length ? errors : [{ location: "body", field: "openapi", message }] });

/** The document's declarations; 422 problems say what is wrong with it, `openapi.<where>` for each. */
export function importOpenApi(document: unknown, options: { name?: string; policy: AddressPolicy }): PlatformDeclaration {
  if (!isObject(document)) throw invalid("`openapi` must be an OpenAPI document as a JSON object.");
  const size = JSON.stringify(document).length;
  if (size > MAX_DOCUMENT_BYTES) throw new HubError("payload_too_large", `OpenAPI documents are limited to ${MAX_DOCUMENT_BYTES} bytes; this one has ${size}.`);
  const version = typeof document.openapi === "string" ? document.openapi : "";
  if (!/^3\.[01]\.\d+$/.test(version)) {
    const seen = typeof document.swagger === "string" ? `Swagger ${document.swagger}` : version ? `OpenAPI ${version}` : "no `openapi` version";
    throw invalid(`Only OpenAPI 3.0 and 3.1 documents are taken; this one has ${seen}.`, [
      { location: "body", field: "openapi.openapi", message: "Expected 3.0.x or 3.1.x." },
    ]);
  }
  if (!isObject(document.info) || typeof document.info.title !== "string" || !document.info.title.trim())
    throw invalid("The document has no `info.title`.", [{ location: "body", field: "openapi.info.title", message: "Required." }]);
  if (!isObject(document.paths)) throw invalid("The document has no `paths`.", [{ location: "body", field: "openapi.paths", message: "Required." }]);
  // Counted before and after resolving: a path item can be a `$ref`, which counts as nothing before.
  countOperations(document.paths);

  const spec: Obj = resolveLocalRefs(document);
  countOperations(isObject(spec.paths) ? spec.paths : {});
  const serverUrl = firstServer(spec, options.policy);
  const auth = authOf(spec);
  if (auth.kind === "oauth2")
    for (const url of [auth.authorize_url, auth.token_url]) allowedUrl(url, `openapi.components.securitySchemes.${auth.scheme}`, options.policy);
  const tools = toolsOf(spec, auth);
  if (tools.length === 0) throw invalid("The document has no operations the hub can call (GET, POST, PUT, PATCH or DELETE).");
  const declaration: PlatformDeclaration = {
    name: (options.name ?? spec.info.title).trim().slice(0, 100),
    description: (typeof spec.info.summary === "string" ? spec.info.summary : typeof spec.info.description === "string" ? spec.info.description : "").slice(
      0,
      1000,
    ),
    openapi_version: version,
    server_url: serverUrl,
    auth,
    tools,
  };
  const bytes = utf8Bytes(JSON.stringify(declaration));
  if (bytes > MAX_DECLARATION_BYTES)
    throw invalid(`The document's operations and schemas are too large to keep: ${bytes} bytes once read, over the limit of ${MAX_DECLARATION_BYTES} bytes.`);
  return declaration;
}

/** Refuses a document past MAX_OPERATIONS, stopping at the first operation over (a count of all could be large). */
function countOperations(paths: Obj): void {
  let count = 0;
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    for (const method of [...Object.keys(METHODS), ...OTHER_METHODS]) if (isObject(item[method])) count++;
    if (count > MAX_OPERATIONS) break;
  }
  if (count > MAX_OPERATIONS)
    throw invalid(`The document has more than ${MAX_OPERATIONS} operations; a custom platform takes at most ${MAX_OPERATIONS}.`, [
      { location: "body", field: "openapi.paths", message: `At most ${MAX_OPERATIONS} operations.` },
    ]);
}

/** The first server's URL: absolute, http(s), and allowed by the outbound address rules (as a connection's base_url). */
function firstServer(spec: Obj, policy: AddressPolicy): string {
  const server = Array.isArray(spec.servers) ? spec.servers[0] : undefined;
  const field = "openapi.servers.0.url";
  if (!isObject(server) || typeof server.url !== "string")
    throw invalid("The document names no server; add `servers: [{url}]` with the API's absolute URL.", [{ location: "body", field, message: "Required." }]);
  // Server variables take their defaults (`https://{region}.api.example.com`).
  const url = server.url.replace(/\{([^}]+)\}/g, (_, name: string) => String(server.variables?.[name]?.default ?? ""));
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(`The first server URL "${url.slice(0, 200)}" is not absolute; give the API's full URL.`, [
      { location: "body", field, message: "Must be an absolute http(s) URL." },
    ]);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    throw invalid("The first server URL must be http or https.", [{ location: "body", field, message: "Must be http(s)." }]);
  allowedUrl(parsed.toString(), field, policy);
  return parsed.toString().replace(/\/$/, "");
}

/** A URL from the document the hub will call (a server, an OAuth endpoint), held to the outbound address rules. */
function allowedUrl(url: string, field: string, policy: AddressPolicy): void {
  try {
    checkUrl(url, policy);
  } catch (error) {
    if (!(error instanceof OutboundRefused)) throw error;
    const what = field.startsWith("openapi.servers") ? "The first server URL" : "The OAuth endpoint";
    throw invalid(`${what} is not allowed: ${error.message}`, [{ location: "body", field, message: error.message }]);
  }
}

/**
 * The connection's auth: the first scheme of the document's top-level `security` the hub can use,
 * else the first such scheme in `components.securitySchemes`, else none. Usable: apiKey in a
 * header or the query, http bearer or basic, oauth2 with an authorization code flow.
 */
function authOf(spec: Obj): CustomAuth {
  const schemes = isObject(spec.components?.securitySchemes) ? (spec.components.securitySchemes as Obj) : {};
  const preferred = (Array.isArray(spec.security) ? spec.security : []).flatMap((requirement: unknown) =>
    isObject(requirement) ? Object.keys(requirement) : [],
  );
  const order = [...new Set([...preferred, ...Object.keys(schemes)])];
  for (const name of order) {
    const auth = usableScheme(name, schemes[name]);
    if (auth) return auth;
  }
  return { kind: "none" };
}

function usableScheme(name: string, scheme: unknown): CustomAuth | undefined {
  if (!isObject(scheme)) return undefined;
  if (scheme.type === "apiKey" && (scheme.in === "header" || scheme.in === "query") && typeof scheme.name === "string" && usableName(scheme.in, scheme.name))
    return { kind: "api_key", scheme: name, in: scheme.in, name: scheme.name.slice(0, 200) };
  if (scheme.type === "http" && typeof scheme.scheme === "string") {
    const kind = scheme.scheme.toLowerCase();
    if (kind === "bearer") return { kind: "bearer", scheme: name };
    if (kind === "basic") return { kind: "basic", scheme: name };
  }
  const flow = scheme.type === "oauth2" && isObject(scheme.flows) ? scheme.flows.authorizationCode : undefined;
  if (isObject(flow) && typeof flow.authorizationUrl === "string" && typeof flow.tokenUrl === "string") {
    const scopes = isObject(flow.scopes) ? Object.keys(flow.scopes).slice(0, 100) : [];
    return { kind: "oauth2", scheme: name, authorize_url: flow.authorizationUrl, token_url: flow.tokenUrl, scopes };
  }
  return undefined;
}

function toolsOf(spec: Obj, auth: CustomAuth): ToolDeclaration[] {
  const tools: ToolDeclaration[] = [];
  const taken = new TakenActions();
  const documentBudget = new DocumentBudget(MAX_DECLARATION_BYTES);
  const credentialHeaders = credentialHeadersOf(auth);
  for (const [path, item] of Object.entries(spec.paths as Obj)) {
    if (!isObject(item) || !path.startsWith("/")) continue;
    for (const [method, verb] of Object.entries(METHODS)) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const operationId = typeof operation.operationId === "string" && operation.operationId ? operation.operationId : `${method} ${path}`;
      const action = uniqueAction(snakeCase(operationId), taken);
      const where = `openapi.paths.${path}.${method}`;
      const declared = [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(operation.parameters) ? operation.parameters : [])];
      // Refused rather than cut: which of the parameters would be kept is not the person's choice.
      if (declared.length > MAX_DECLARED_PARAMETERS)
        throw invalid(
          `${method.toUpperCase()} ${path.slice(0, 200)} declares ${declared.length} parameters; an operation takes at most ${MAX_DECLARED_PARAMETERS}.`,
          [{ location: "body", field: `${where}.parameters`, message: `At most ${MAX_DECLARED_PARAMETERS}.` }],
        );
      const parameters = parametersOf(declared, credentialHeaders);
      const bodySchema = jsonBodySchema(operation.requestBody);
      const budget = new SchemaBudget(documentBudget);
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      for (const parameter of parameters) {
        const described = typeof parameter.source.description === "string" ? { description: parameter.source.description.slice(0, 1000) } : {};
        properties[parameter.declaration.property] = { ...toInputSchema(parameter.source.schema ?? { type: "string" }, budget), ...described };
        if (parameter.declaration.required) required.push(parameter.declaration.property);
      }
      const body = bodySchema ? { required: operation.requestBody?.required === true } : null;
      if (bodySchema) {
        properties.body = toInputSchema(bodySchema, budget);
        if (body?.required) required.push("body");
      }
      const inputSchema: JsonSchema = { type: "object", properties, ...(required.length ? { required } : {}) };
      const [problem] = schemaProblems(inputSchema);
      if (problem)
        throw invalid(`Operation ${operationId} has an input schema the hub cannot check (at ${problem.pointer || "/"}): ${problem.message}`, [
          { location: "body", field: where, message: problem.message },
        ]);
      const summary = typeof operation.summary === "string" ? operation.summary : "";
      const description = typeof operation.description === "string" ? operation.description : summary;
      tools.push({
        action,
        operation_id: operationId.slice(0, 200),
        title: (summary || operationId).slice(0, 200),
        description: (description || `${verb} ${path}`).slice(0, 2000),
        method: verb,
        path,
        parameters: parameters.map((p) => p.declaration),
        body,
        input_schema: inputSchema,
      });
    }
  }
  return tools;
}

/**
 * Path, query and header parameters (an operation's override the path item's of the same name and
 * place); cookies are not sent, nor a header that carries the credential (the model's value would
 * replace the connection's key).
 */
const MAX_PARAMETERS = 200;
/** Parameters one operation may declare, its path item's included (a path item shared by $ref repeats its list per operation). */
const MAX_DECLARED_PARAMETERS = 1000;

function parametersOf(list: unknown[], credentialHeaders: Set<string>): { declaration: ParameterDeclaration; source: Obj }[] {
  const byKey = new Map<string, Obj>();
  for (const parameter of list) {
    if (!isObject(parameter) || typeof parameter.name !== "string" || !["path", "query", "header"].includes(parameter.in)) continue;
    if (!usableName(parameter.in, parameter.name)) continue;
    if (parameter.in === "header" && credentialHeaders.has(parameter.name.toLowerCase())) continue;
    byKey.set(`${parameter.in}:${parameter.name}`, parameter);
  }
  // At most 200 parameters an operation, counted once: a name used in two places (a path and a
  // query `id`) gets its place as a prefix.
  const kept = [...byKey.values()].slice(0, MAX_PARAMETERS);
  const uses = new Map<string, number>();
  for (const p of kept) uses.set(p.name as string, (uses.get(p.name as string) ?? 0) + 1);
  return kept.map((source) => {
    const name = source.name as string;
    const shared = (uses.get(name) ?? 0) > 1 || name === "body" || name === "connection_id";
    const isArray = source.schema?.type === "array";
    return {
      source,
      declaration: {
        name,
        in: source.in,
        property: shared ? `${source.in}_${name}` : name,
        required: source.in === "path" || source.required === true,
        ...(source.in === "query" && isArray ? { explode: source.explode !== false } : {}),
      },
    };
  });
}

/** HTTP header names are tokens (RFC 9110 §5.1); other names only need to be non-empty and short. */
const usableName = (place: string, name: string) => name.length > 0 && name.length <= 200 && (place !== "header" || /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name));

/** The schema of a JSON request body (`application/json` or a `+json` type), if the operation takes one. */
function jsonBodySchema(requestBody: unknown): unknown {
  if (!isObject(requestBody) || !isObject(requestBody.content)) return undefined;
  const type = Object.keys(requestBody.content).find((t) => /^application\/([\w.-]+\+)?json\b/i.test(t));
  return type ? (requestBody.content[type]?.schema ?? {}) : undefined;
}

/** Characters of an operationId (or method and path) a tool's name is made from. */
const MAX_NAME_INPUT = 200;

/** `findPetsByStatus` → `find_pets_by_status`; `get /pet/{petId}` → `get_pet_pet_id`; bounded to fit a tool name. */
export function snakeCase(text: string): string {
  // Bounded before any regex: two of these take time that grows with the square of a run of
  // capitals or punctuation, and an operationId may be as long as the document.
  const snake = text
    .slice(0, MAX_NAME_INPUT)
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return snake || "operation";
}

/** The actions given so far, and for each name the next suffix to try, so repeats cost no rescans. */
class TakenActions {
  readonly names = new Set<string>();
  readonly nextSuffix = new Map<string, number>();
}

/** The action as it fits in a tool name, made unique among the platform's (a short suffix where two meet). */
function uniqueAction(action: string, taken: TakenActions): string {
  const base = action.slice(0, TOOL_NAME_ROOM).replace(/_+$/, "");
  let candidate = base;
  let n = taken.nextSuffix.get(base) ?? 2;
  // Usually one step: only a name that happens to equal an earlier suffixed one moves further.
  while (taken.names.has(candidate)) {
    candidate = `${action.slice(0, TOOL_NAME_ROOM - String(n).length - 1).replace(/_+$/, "")}_${n}`;
    n++;
  }
  if (candidate !== base) taken.nextSuffix.set(base, n);
  taken.names.add(candidate);
  return candidate;
}
