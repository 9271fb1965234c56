// How a document's security schemes and parameters become a connection's auth and a call's
// request (src/connections/custom/openapi-import.ts, custom-platform.ts), without the network.
import { describe, expect, it } from "vitest";
import { platformOf, requestFor } from "../../src/connections/custom/custom-platform";
import { importOpenApi, snakeCase } from "../../src/connections/custom/openapi-import";
import type { CustomPlatformRow } from "../../src/db/schema";

const policy = { allowPrivateNetworks: false };
const documentWith = (securitySchemes: Record<string, unknown>, security?: unknown[]) => ({
  openapi: "3.0.3",
  info: { title: "API", version: "1" },
  servers: [{ url: "https://api.example.com/v2" }],
  components: { securitySchemes },
  ...(security ? { security } : {}),
  paths: {
    "/items/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      get: {
        operationId: "getItem",
        parameters: [
          { name: "id", in: "query", schema: { type: "integer" } },
          { name: "X-Trace", in: "header", schema: { type: "string" } },
          { name: "session", in: "cookie", schema: { type: "string" } },
          { name: "fields", in: "query", explode: false, schema: { type: "array", items: { type: "string" } } },
        ],
        responses: { 200: { description: "ok" } },
      },
    },
  },
});

const rowOf = (declaration: ReturnType<typeof importOpenApi>): CustomPlatformRow => ({
  id: 1,
  uid: "cp_abcdefgh",
  userId: 1,
  name: declaration.name,
  description: declaration.description,
  openapiVersion: declaration.openapi_version,
  serverUrl: declaration.server_url,
  auth: declaration.auth,
  tools: declaration.tools,
  toolCount: declaration.tools.length,
  toolsBytes: 0,
  createdAt: new Date(),
});

describe("auth from securitySchemes", () => {
  it("prefers the top-level security requirement, then the first usable scheme; cookies and OpenID Connect are not used", () => {
    const schemes = {
      cookie: { type: "apiKey", in: "cookie", name: "sid" },
      oidc: { type: "openIdConnect", openIdConnectUrl: "https://id.example.com/.well-known/openid-configuration" },
      basic: { type: "http", scheme: "basic" },
      bearer: { type: "http", scheme: "Bearer" },
    };
    expect(importOpenApi(documentWith(schemes), { policy }).auth).toEqual({ kind: "basic", scheme: "basic" });
    expect(importOpenApi(documentWith(schemes, [{ bearer: [] }]), { policy }).auth).toEqual({ kind: "bearer", scheme: "bearer" });
    expect(importOpenApi(documentWith({ cookie: schemes.cookie }), { policy }).auth).toEqual({ kind: "none" });
  });

  it("sends basic credentials as UTF-8, a bearer token, and a query API key where the scheme says", () => {
    const basic = platformOf(rowOf(importOpenApi(documentWith({ b: { type: "http", scheme: "basic" } }), { policy })));
    expect(basic.secretFields).toEqual(["password"]);
    expect(basic.authHeaders!({ username: "zoë", password: "p:w" })).toEqual({ Authorization: `Basic ${btoa("zo\u00c3\u00ab:p:w")}` });
    const bearer = platformOf(rowOf(importOpenApi(documentWith({ t: { type: "http", scheme: "bearer" } }), { policy })));
    expect(bearer.authHeaders!({ token: "tok" })).toEqual({ Authorization: "Bearer tok" });
    const declaration = importOpenApi(documentWith({ k: { type: "apiKey", in: "query", name: "key" } }), { policy });
    const query = platformOf(rowOf(declaration));
    expect(query.authHeaders).toBeUndefined();
    const request = requestFor(declaration.tools[0]!, { path_id: "a b", query_id: 7 }, declaration.auth, { api_key: "s3cret" });
    expect(request.path).toBe("/items/a%20b?id=7&key=s3cret");
  });
});

describe("parameters", () => {
  it("names a parameter used in two places by place, drops cookies, and joins an unexploded array", () => {
    const declaration = importOpenApi(documentWith({}), { policy });
    const [tool] = declaration.tools;
    expect(tool!.action).toBe("get_item");
    expect(Object.keys(tool!.input_schema.properties as object).sort()).toEqual(["X-Trace", "fields", "path_id", "query_id"]);
    expect(tool!.input_schema.required).toEqual(["path_id"]);
    const request = requestFor(tool!, { path_id: "1", fields: ["a", "b"], "X-Trace": "t\r\nInjected: 1" }, declaration.auth, {});
    expect(request).toMatchObject({ method: "GET", path: "/items/1?fields=a%2Cb", headers: { "X-Trace": "t  Injected: 1" } });
  });

  it("names operations in snake_case", () => {
    expect(snakeCase("findPetsByStatus")).toBe("find_pets_by_status");
    expect(snakeCase("getHTTPResponse")).toBe("get_http_response");
    expect(snakeCase("get /pet/{petId}")).toBe("get_pet_pet_id");
    expect(snakeCase("---")).toBe("operation");
  });

  it("makes a name from the first 200 characters of an operationId as long as the document", () => {
    // Runs of capitals and of punctuation are what would make the naming rules slow on a long id.
    expect(snakeCase("A".repeat(1_000_000))).toBe("a".repeat(200));
    expect(snakeCase(`x${"-".repeat(1_000_000)}x`)).toBe("x");
    const document = documentWith({});
    (document.paths["/items/{id}"].get as any).operationId = `list${"Z".repeat(500_000)}`;
    expect(importOpenApi(document, { policy }).tools[0]!.action).toMatch(/^list_z+$/);
  });

  it("refuses an operation declaring more than 1,000 parameters, naming it", () => {
    const document = documentWith({});
    document.paths["/items/{id}"].get.parameters = Array.from({ length: 1001 }, (_, i) => ({ name: `p${i}`, in: "query", schema: { type: "string" } }));
    expect(() => importOpenApi(document, { policy })).toThrow(/declares 1002 parameters; an operation takes at most 1000/);
  });
});
