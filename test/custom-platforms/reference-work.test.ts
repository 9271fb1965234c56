// The work of reading a document's `$ref`s grows with the document, not with the square of its
// reference chains or with its fan-out (src/connections/custom/local-refs.ts). A 178 KB document
// whose schemas form a 4,000-link chain once held the isolate for minutes; it is now answered at
// once (201: a long chain is a valid document), and every shape here is read in work measured by
// the resolver's own step count, a small multiple of the document's size.
import { describe, expect, it } from "vitest";
import { MAX_MERGED_KEYS, resolveLocalRefs } from "../../src/connections/custom/local-refs";
import { importOpenApi } from "../../src/connections/custom/openapi-import";
import { HubError } from "../../src/core/errors";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { addPlatform } from "./helpers";

const policy = { allowPrivateNetworks: false };
const base = { openapi: "3.1.0", info: { title: "References", version: "1" }, servers: [{ url: "https://api.example.com" }] };
const ok = { 200: { description: "ok" } };
const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonBody = (schema: unknown) => ({ content: { "application/json": { schema } } });

/** s0 → s1 → … → s<links>, the last a string; one operation takes s0 as its body. */
function chain(links: number) {
  const schemas: Record<string, unknown> = { [`s${links}`]: { type: "string", maxLength: 10 } };
  for (let i = 0; i < links; i++) schemas[`s${i}`] = schemaRef(`s${i + 1}`);
  return { ...base, paths: { "/chain": { post: { operationId: "chain", requestBody: jsonBody(schemaRef("s0")), responses: ok } } }, components: { schemas } };
}

/** The resolver's steps for `document`, and the document's size, to compare. */
function measured(document: Record<string, unknown>) {
  const meter = { steps: 0 };
  const resolved = resolveLocalRefs(document, meter);
  return { resolved, steps: meter.steps, size: JSON.stringify(document).length };
}

function refusal(document: unknown): HubError {
  try {
    importOpenApi(document, { policy });
  } catch (error) {
    if (error instanceof HubError) return error;
    throw error;
  }
  throw new Error("the document was taken");
}

describe("reference chains", () => {
  it("answers a 4,000-link chain at once, and the hub keeps answering others", async () => {
    const { key } = await newApiKey(await newUser());
    const document = chain(4000);
    expect(JSON.stringify(document).length).toBeGreaterThan(170_000);
    const response = await addPlatform(key, document);
    expect(response.status).toBe(201);
    const platform = await json(response);
    // The chain ends in a string: that is the body the tool takes.
    expect(platform.tools[0].input_schema.properties.body).toEqual({ type: "string", maxLength: 10 });
    expect((await call("/health")).status).toBe(200);
  });

  it("follows each link once, however long the chain", () => {
    for (const links of [1000, 4000, 40_000]) {
      const { steps, size } = measured(chain(links));
      // Quadratic work would be links² / 2 steps: 800 million for the longest.
      expect(steps).toBeLessThan(size);
    }
  });

  it("refuses references that only lead back to themselves, naming where", () => {
    const document = {
      ...base,
      paths: { "/loop": { post: { operationId: "loop", requestBody: jsonBody(schemaRef("a")), responses: ok } } },
      components: { schemas: { a: schemaRef("b"), b: schemaRef("c"), c: schemaRef("a") } },
    };
    const problem = refusal(document);
    expect(problem.message).toMatch(/#\/components\/schemas\/[abc] only leads back to itself/);
    expect(problem.errors?.[0]?.field).toMatch(/^openapi\.(components\.schemas\.[abc]|paths\.\/loop\.post\.requestBody\.content\.application\/json\.schema)$/);
  });

  it("keeps recursive schemas as shared objects, each reference followed once", () => {
    const document = {
      ...base,
      paths: { "/tree": { post: { operationId: "tree", requestBody: jsonBody(schemaRef("Node")), responses: ok } } },
      components: { schemas: { Node: { type: "object", properties: { children: { type: "array", items: schemaRef("Node") } } } } },
    };
    const { resolved } = measured(document);
    const node = (resolved.components as any).schemas.Node;
    expect(node.properties.children.items).toBe(node);
    const body = (importOpenApi(document, { policy }).tools[0]!.input_schema.properties as any).body;
    expect(body.properties.children.items).toEqual({});
  });
});

describe("references that fan out", () => {
  it("resolves 20,000 references to the head of a 1,000-link chain in steps linear in the document", async () => {
    // Following the chain again from each reference would be 20 million steps.
    const schemas: Record<string, unknown> = { h1000: { type: "integer" } };
    for (let i = 0; i < 1000; i++) schemas[`h${i}`] = schemaRef(`h${i + 1}`);
    for (let i = 0; i < 100; i++)
      schemas[`wide${i}`] = { type: "object", properties: Object.fromEntries(Array.from({ length: 200 }, (_, p) => [`p${p}`, schemaRef("h0")])) };
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) paths[`/wide/${i}`] = { post: { operationId: `wide${i}`, requestBody: jsonBody(schemaRef(`wide${i}`)), responses: ok } };
    const document = { ...base, paths, components: { schemas } };
    const { steps, size } = measured(document);
    expect(steps).toBeLessThan(size);

    const { key } = await newApiKey(await newUser());
    const response = await addPlatform(key, document);
    expect(response.status).toBe(201);
    const platform = await json(response);
    expect(platform.tools).toHaveLength(100);
    expect(platform.tools[99].input_schema.properties.body.properties.p199).toEqual({ type: "integer" });
  });

  it("resolves path items, parameters and request bodies given as references to references", () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 250; i++) paths[`/items/${i}`] = { $ref: "#/components/pathItems/ItemsAlias" };
    const document = {
      ...base,
      paths,
      components: {
        pathItems: {
          ItemsAlias: { $ref: "#/components/pathItems/Items" },
          Items: {
            parameters: [{ $ref: "#/components/parameters/LimitAlias" }],
            get: { operationId: "list", responses: ok },
            post: { operationId: "add", requestBody: { $ref: "#/components/requestBodies/ItemAlias" }, responses: ok },
          },
        },
        parameters: { LimitAlias: { $ref: "#/components/parameters/Limit" }, Limit: { name: "limit", in: "query", schema: schemaRef("Count") } },
        requestBodies: { ItemAlias: { $ref: "#/components/requestBodies/Item" }, Item: { required: true, ...jsonBody(schemaRef("Item")) } },
        schemas: { Count: { type: "integer", minimum: 1 }, Item: { type: "object", properties: { count: schemaRef("Count") } } },
      },
    };
    const { steps, size } = measured(document);
    expect(steps).toBeLessThan(size);
    const tools = importOpenApi(document, { policy }).tools;
    expect(tools).toHaveLength(500);
    expect(tools[1]).toMatchObject({ action: "add", body: { required: true }, parameters: [{ name: "limit", in: "query" }] });
    expect((tools[1]!.input_schema.properties as any).body.properties.count).toEqual({ type: "integer", minimum: 1 });
  });

  it("lets a reference's own keys win over its target's, and refuses merges past the bound", () => {
    const document = {
      ...base,
      paths: {
        "/one": {
          get: {
            operationId: "one",
            parameters: [{ name: "q", in: "query", description: "Theirs", schema: { ...schemaRef("Text"), maxLength: 5 } }],
            responses: ok,
          },
        },
      },
      components: { schemas: { Text: { type: "string", maxLength: 50, description: "Text" } } },
    };
    expect((importOpenApi(document, { policy }).tools[0]!.input_schema.properties as any).q).toEqual({ type: "string", maxLength: 5, description: "Theirs" });

    // 10,000 references with a key of their own to a map of 200 schemas: 2 million keys to copy.
    const schemas: Record<string, unknown> = {};
    for (let i = 0; i < 200; i++) schemas[`m${i}`] = { type: "string" };
    const properties = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, { $ref: "#/components/schemas", description: "all" }]));
    const wide = {
      ...base,
      paths: { "/wide": { post: { operationId: "wide", requestBody: jsonBody({ type: "object", properties }), responses: ok } } },
      components: { schemas },
    };
    const problem = refusal(wide);
    expect(problem.code).toBe("validation_failed");
    expect(problem.errors?.[0]).toMatchObject({ field: "openapi", message: expect.stringContaining(String(MAX_MERGED_KEYS)) });
  });

  it("answers 422 naming a reference that points nowhere or to another file", async () => {
    const { key } = await newApiKey(await newUser());
    const document = (schema: unknown) => ({
      ...base,
      paths: { "/x": { post: { operationId: "x", requestBody: jsonBody(schema), responses: ok } } },
      components: { schemas: { Real: { type: "string" } } },
    });
    const missing = await expectProblem(await addPlatform(key, document(schemaRef("Missing"))), 422, "validation_failed");
    expect(missing.detail).toContain("points to nothing");
    expect(missing.errors?.[0].field).toBe("openapi.paths./x.post.requestBody.content.application/json.schema");
    const external = await expectProblem(await addPlatform(key, document({ $ref: "https://example.com/schemas.json#/Pet" })), 422, "validation_failed");
    expect(external.detail).toContain("not followed");
    // A `$ref` inside an example or an extension is data, not a reference.
    const data = document({ type: "object", example: { $ref: "#/nowhere" }, "x-note": { $ref: "#/nowhere" }, properties: { default: schemaRef("Real") } });
    expect((await addPlatform(key, data)).status).toBe(201);
  });
});
