import { describe, expect, it } from "vitest";
import { call, json } from "../helpers/api";

describe("OpenAPI document and docs page", () => {
  it("serves an OpenAPI 3.1 document without a credential, covering every route of the route map so far", async () => {
    const response = await call("/v1/openapi.json");
    expect(response.status).toBe(200);
    const doc = await json(response);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    const operations = Object.entries<any>(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations).toEqual(
      expect.arrayContaining([
        "POST /v1/auth/register",
        "POST /v1/auth/login",
        "POST /v1/auth/token",
        "POST /v1/auth/api-keys",
        "GET /v1/auth/api-keys",
        "DELETE /v1/auth/api-keys/{id}",
        "POST /v1/auth/apps",
        "GET /v1/auth/apps",
        "DELETE /v1/auth/apps/{client_id}",
        "GET /v1/me",
        "PATCH /v1/me",
      ]),
    );
  });

  it("marks register, login and token as needing no credential", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    for (const path of ["/v1/auth/register", "/v1/auth/login", "/v1/auth/token"]) {
      expect(doc.paths[path].post.security, path).toEqual([]);
      expect(doc.paths[path].post.responses["429"], path).toBeDefined();
    }
  });

  it("documents the scope and the error responses of every authenticated operation", async () => {
    const doc = await json(await call("/v1/openapi.json"));
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const scopes = (op.security ?? []).flatMap((s: any) => s.bearerAuth ?? []);
        if (scopes.length === 0) continue;
        for (const status of ["401", "403", "422", "429"]) {
          expect(op.responses[status], `${method} ${path} ${status}`).toBeDefined();
        }
        expect(op.responses["401"].content["application/problem+json"].schema.$ref).toBe("#/components/schemas/Problem");
      }
    }
  });

  it("renders a readable reference at /docs from the same document", async () => {
    const response = await call("/docs");
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("POST /v1/auth/token".split(" ")[1]);
    expect(html).toContain('id="error-rate_limited"');
    expect(html).toContain("Register an OAuth 2.0 app");
    expect(html).toContain("workflow:execute");
  });
});
