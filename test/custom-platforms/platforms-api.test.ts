// POST/GET/DELETE /v1/platforms (DESIGN §5 "Custom platforms"): a real public OpenAPI document (the
// Swagger Petstore 3) becomes a platform private to its maker, within the document bounds.
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { addPetstore, addPlatform, petstoreDocument } from "./helpers";

describe("custom platforms from the Petstore document", () => {
  it("turns each operation into a snake_case tool with its parameters and body as the input schema, auth from securitySchemes", async () => {
    const { key } = await newApiKey(await newUser());
    const response = await addPlatform(key, petstoreDocument());
    expect(response.status).toBe(201);
    const platform = await json(response);
    expect(platform.platform_id).toMatch(/^cp_[a-z0-9]{8}$/);
    expect(platform).toMatchObject({
      name: "Swagger Petstore - OpenAPI 3.0",
      openapi_version: "3.0.4",
      server_url: "https://petstore3.swagger.io/api/v3",
      // petstore_auth is an implicit flow (not authorization code): the api_key header scheme is the one used.
      auth: { kind: "api_key", scheme: "api_key", in: "header", name: "api_key" },
      auth_kind: "api_key",
      secret_fields: ["api_key"],
    });
    expect(platform.config_schema.properties.api_key).toMatchObject({ writeOnly: true, "x-secret": true });
    expect(platform.tools).toHaveLength(19);
    const byName = Object.fromEntries(platform.tools.map((t: any) => [t.name, t]));
    const findByStatus = byName[`${platform.platform_id}_find_pets_by_status`];
    expect(findByStatus).toMatchObject({ operation_id: "findPetsByStatus", method: "GET", path: "/pet/findByStatus" });
    expect(findByStatus.input_schema.properties.status).toMatchObject({
      type: "string",
      enum: ["available", "pending", "sold"],
      default: "available",
      description: "Status values that need to be considered for filter",
    });
    expect(findByStatus.input_schema.required).toBeUndefined();
    const addPet = byName[`${platform.platform_id}_add_pet`];
    // The body is the dereferenced Pet schema: required fields kept, read-only ones dropped.
    expect(addPet.input_schema.required).toEqual(["body"]);
    expect(addPet.input_schema.properties.body).toMatchObject({ type: "object", required: ["name", "photoUrls"] });
    expect(addPet.input_schema.properties.body.properties.category.properties.name).toMatchObject({ type: "string" });
    const getPet = byName[`${platform.platform_id}_get_pet_by_id`];
    expect(getPet.input_schema.properties.petId).toMatchObject({ type: "integer", format: "int64" });
    expect(getPet.input_schema.required).toEqual(["petId"]);
  });

  it("lists and deletes the caller's platforms only; another user's is 404", async () => {
    const owner = await newApiKey(await newUser());
    const stranger = await newApiKey(await newUser());
    const id = await addPetstore(owner.key);
    const listed = await json(await call("/v1/platforms", { token: owner.key }));
    expect(listed.data.map((p: any) => p.platform_id)).toEqual([id]);
    expect(listed.next_cursor).toBeNull();
    expect((await json(await call("/v1/platforms", { token: stranger.key }))).data).toEqual([]);
    await expectProblem(await call(`/v1/platforms/${id}`, { token: stranger.key }), 404, "not_found");
    await expectProblem(await call(`/v1/platforms/${id}`, { token: stranger.key, method: "DELETE" }), 404, "not_found");
    // The stranger cannot connect to it either.
    await expectProblem(
      await call("/v1/connections", { token: stranger.key, json: { platform: id, name: "x", config: { api_key: "special-key" } } }),
      422,
      "validation_failed",
    );
    expect((await call(`/v1/platforms/${id}`, { token: owner.key })).status).toBe(200);
    expect((await call(`/v1/platforms/${id}`, { token: owner.key, method: "DELETE" })).status).toBe(204);
    await expectProblem(await call(`/v1/platforms/${id}`, { token: owner.key }), 404, "not_found");
  });

  it("refuses to delete a platform that still has connections, naming them", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await addPetstore(key);
    const connection = await json(await call("/v1/connections", { token: key, json: { platform: id, name: "pets", config: { api_key: "special-key" } } }));
    const problem = await expectProblem(await call(`/v1/platforms/${id}`, { token: key, method: "DELETE" }), 409, "conflict");
    expect(problem.detail).toContain(String(connection.connection_id));
    expect((await call(`/v1/connections/${connection.connection_id}`, { token: key, method: "DELETE" })).status).toBe(204);
    expect((await call(`/v1/platforms/${id}`, { token: key, method: "DELETE" })).status).toBe(204);
  });
});

describe("bounds and bad documents", () => {
  it("answers 413 for a document over 2 MiB, though it is JSON", async () => {
    const { key } = await newApiKey(await newUser());
    const document = { ...petstoreDocument(), "x-padding": "p".repeat(2 * 1024 * 1024 + 10) };
    await expectProblem(await addPlatform(key, document), 413, "payload_too_large");
  });

  it("takes a document between 1 and 2 MiB, which other routes would refuse", async () => {
    const { key } = await newApiKey(await newUser());
    const document = { ...petstoreDocument(), "x-padding": "p".repeat(1536 * 1024) };
    expect((await addPlatform(key, document)).status).toBe(201);
  });

  it("refuses more than 500 operations", async () => {
    const { key } = await newApiKey(await newUser());
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 501; i++) paths[`/things/${i}`] = { get: { operationId: `getThing${i}`, responses: { 200: { description: "ok" } } } };
    const document = { openapi: "3.1.0", info: { title: "Many", version: "1" }, servers: [{ url: "https://api.example.com" }], paths };
    const problem = await expectProblem(await addPlatform(key, document), 422, "validation_failed");
    expect(problem.detail).toContain("more than 500 operations");
  });

  it("says what is wrong with a document that is not OpenAPI 3, has no server, or has unresolvable references", async () => {
    const { key } = await newApiKey(await newUser());
    const swagger = await expectProblem(await addPlatform(key, { swagger: "2.0", info: { title: "Old", version: "1" }, paths: {} }), 422, "validation_failed");
    expect(swagger.detail).toContain("Swagger 2.0");
    const noServer = { ...petstoreDocument(), servers: undefined };
    expect((await expectProblem(await addPlatform(key, noServer), 422, "validation_failed")).detail).toContain("names no server");
    const relative = { ...petstoreDocument(), servers: [{ url: "/api/v3" }] };
    expect((await expectProblem(await addPlatform(key, relative), 422, "validation_failed")).detail).toContain("not absolute");
    const broken = petstoreDocument();
    broken.paths["/pet"].put.requestBody.content["application/json"].schema = { $ref: "#/components/schemas/Missing" };
    const refs = await expectProblem(await addPlatform(key, broken), 422, "validation_failed");
    expect(refs.detail).toContain("references cannot be resolved");
    await expectProblem(await call("/v1/platforms", { token: key, json: { openapi: "not a document" } }), 422, "validation_failed");
  });

  it("cuts recursive and deeply nested schemas instead of expanding them", async () => {
    const { key } = await newApiKey(await newUser());
    const document = {
      openapi: "3.1.0",
      info: { title: "Trees", version: "1" },
      servers: [{ url: "https://api.example.com" }],
      components: {
        schemas: {
          Node: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/components/schemas/Node" } } } },
        },
      },
      paths: {
        "/nodes": {
          post: {
            requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } } },
            responses: { 201: { description: "made" } },
          },
        },
      },
    };
    const response = await addPlatform(key, document);
    expect(response.status).toBe(201);
    const platform = await json(response);
    // No operationId: the tool is named from method and path.
    expect(platform.tools[0].name).toBe(`${platform.platform_id}_post_nodes`);
    // The recursion is followed a bounded number of times, then becomes `{}` (anything).
    let node = platform.tools[0].input_schema.properties.body;
    let levels = 0;
    while (node.properties?.children?.items) {
      node = node.properties.children.items;
      levels++;
    }
    expect(levels).toBeGreaterThanOrEqual(1);
    expect(levels).toBeLessThan(12);
    expect(JSON.stringify(platform).length).toBeLessThan(10_000);
  });

  it("bounds schemas whose references fan out (each level ten references to the next)", async () => {
    const { key } = await newApiKey(await newUser());
    const schemas: Record<string, unknown> = { L10: { type: "string" } };
    for (let level = 0; level < 10; level++) {
      const properties = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { $ref: `#/components/schemas/L${level + 1}` }]));
      schemas[`L${level}`] = { type: "object", properties };
    }
    const document = {
      openapi: "3.0.3",
      info: { title: "Laughs", version: "1" },
      servers: [{ url: "https://api.example.com" }],
      components: { schemas },
      paths: {
        "/x": {
          post: {
            operationId: "x",
            requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/L0" } } } },
            responses: { 200: { description: "ok" } },
          },
        },
      },
    };
    const response = await addPlatform(key, document);
    expect(response.status).toBe(201);
    // Fully expanded it would be 10^10 subschemas; the copy stops at the per-tool budget.
    expect((await response.text()).length).toBeLessThan(200_000);
  });

  it("applies the outbound address rules to the document's server", async () => {
    const { key } = await newApiKey(await newUser());
    for (const url of ["http://169.254.169.254/latest", "http://metadata.google.internal/api"]) {
      const problem = await expectProblem(await addPlatform(key, { ...petstoreDocument(), servers: [{ url }] }), 422, "validation_failed");
      expect(problem.detail).toContain("not allowed");
      expect(problem.errors?.[0]?.field).toBe("openapi.servers.0.url");
    }
  });

  it("holds an account to 20 custom platforms", async () => {
    const { key } = await newApiKey(await newUser());
    const small = {
      openapi: "3.0.3",
      info: { title: "Tiny", version: "1" },
      servers: [{ url: "https://api.example.com" }],
      paths: { "/ping": { get: { responses: { 200: { description: "ok" } } } } },
    };
    for (let i = 0; i < 20; i++) expect((await addPlatform(key, small)).status).toBe(201);
    await expectProblem(await addPlatform(key, small), 409, "quota_exceeded");
  });
});
