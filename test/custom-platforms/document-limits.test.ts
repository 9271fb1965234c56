// Bounds a hostile or oversized OpenAPI document meets while it is read (src/connections/custom/
// openapi-import.ts, input-schema.ts): expanded schemas stop at the stored declaration's byte
// budget, operations are counted after path-item $refs are resolved, and the declaration is held
// to what a D1 row takes, counted in UTF-8 bytes.
import { describe, expect, it } from "vitest";
import { MAX_DECLARATION_BYTES, MAX_OPERATIONS, importOpenApi } from "../../src/connections/custom/openapi-import";
import { HubError } from "../../src/core/errors";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { addPlatform } from "./helpers";

const policy = { allowPrivateNetworks: false };
const base = { openapi: "3.1.0", info: { title: "Limits", version: "1" }, servers: [{ url: "https://api.example.com" }] };
const ok = { 200: { description: "ok" } };

/** The 422 importOpenApi throws for `document`, or a failure when it takes it. */
function refusal(document: unknown): HubError {
  try {
    importOpenApi(document, { policy });
  } catch (error) {
    if (error instanceof HubError) return error;
    throw error;
  }
  throw new Error("the document was taken");
}

/** `count` operations with descriptions of `length` copies of `character` (kept up to 2,000 characters each). */
function describedOperations(count: number, character: string, length = 2000) {
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) paths[`/items/${i}`] = { get: { operationId: `item${i}`, description: character.repeat(length), responses: ok } };
  return { ...base, paths };
}

describe("schemas that fan out through $refs", () => {
  it("refuses a small document whose shared enum would be copied into every use, naming the limit", () => {
    // The review's shape: a 20,000-value enum in one schema, a 200-property object referencing it,
    // 60 operations whose body is that object. About 300 KB written; expanded, gigabytes.
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 200; i++) properties[`field${i}`] = { $ref: "#/components/schemas/Code" };
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 60; i++)
      paths[`/records/${i}`] = {
        post: {
          operationId: `create${i}`,
          requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Record" } } } },
          responses: ok,
        },
      };
    const document = {
      ...base,
      paths,
      components: {
        schemas: {
          Code: { type: "string", enum: Array.from({ length: 20_000 }, (_, i) => `c${i}`) },
          Record: { type: "object", properties },
        },
      },
    };
    expect(JSON.stringify(document).length).toBeLessThan(400_000);
    const problem = refusal(document);
    expect(problem.code).toBe("validation_failed");
    expect(problem.message).toContain(`${MAX_DECLARATION_BYTES} bytes`);
  });

  it("still takes a shared enum used a few times", () => {
    const declaration = importOpenApi(
      {
        ...base,
        paths: {
          "/a": { get: { operationId: "a", parameters: [{ name: "code", in: "query", schema: { $ref: "#/components/schemas/Code" } }], responses: ok } },
          "/b": { get: { operationId: "b", parameters: [{ name: "code", in: "query", schema: { $ref: "#/components/schemas/Code" } }], responses: ok } },
        },
        components: { schemas: { Code: { type: "string", enum: ["red", "green"] } } },
      },
      { policy },
    );
    expect(declaration.tools.map((t) => (t.input_schema.properties as any).code.enum)).toEqual([
      ["red", "green"],
      ["red", "green"],
    ]);
  });
});

describe("operations behind path-item $refs", () => {
  const viaRefs = (count: number, operationId = "listThings") => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) paths[`/things/${i}`] = { $ref: "#/components/pathItems/Things" };
    return {
      ...base,
      paths,
      components: { pathItems: { Things: { get: { operationId, responses: ok }, post: { operationId: `${operationId}Add`, responses: ok } } } },
    };
  };

  it(`counts them after resolving, refusing more than ${MAX_OPERATIONS}`, () => {
    const problem = refusal(viaRefs(MAX_OPERATIONS / 2 + 1));
    expect(problem.code).toBe("validation_failed");
    expect(problem.message).toContain(`more than ${MAX_OPERATIONS} operations`);
  });

  it("takes exactly the limit, giving repeated operation ids numbered, distinct tool names", () => {
    const declaration = importOpenApi(viaRefs(MAX_OPERATIONS / 2), { policy });
    const actions = declaration.tools.map((t) => t.action);
    expect(actions).toHaveLength(MAX_OPERATIONS);
    expect(new Set(actions).size).toBe(MAX_OPERATIONS);
    expect(actions.slice(0, 4)).toEqual(["list_things", "list_things_add", "list_things_2", "list_things_add_2"]);
    expect(actions.at(-1)).toBe(`list_things_add_${MAX_OPERATIONS / 2}`);
  });

  it("skips a suffix another operation already took as its own name", () => {
    const declaration = importOpenApi(
      {
        ...base,
        paths: {
          "/a": { get: { operationId: "sync", responses: ok } },
          "/b": { get: { operationId: "sync_2", responses: ok } },
          "/c": { get: { operationId: "sync", responses: ok } },
        },
      },
      { policy },
    );
    expect(declaration.tools.map((t) => t.action)).toEqual(["sync", "sync_2", "sync_3"]);
  });
});

describe("the stored declaration's size", () => {
  it(`refuses one over ${MAX_DECLARATION_BYTES} UTF-8 bytes, though fewer characters (D1 counts bytes)`, () => {
    // 500 descriptions of 2,000 "é": about 1 million characters, over 2 million bytes.
    const document = describedOperations(500, "é");
    const problem = refusal(document);
    expect(problem.code).toBe("validation_failed");
    expect(problem.message).toContain(`limit of ${MAX_DECLARATION_BYTES} bytes`);
    // The same text in ASCII is half the bytes and is taken.
    expect(importOpenApi(describedOperations(500, "e"), { policy }).tools).toHaveLength(500);
  });

  it("stores a declaration just under the limit (D1 takes the row)", async () => {
    const { key } = await newApiKey(await newUser());
    // 440 descriptions of 2,000 "é": about 1.84 MB of declaration.
    const response = await addPlatform(key, describedOperations(440, "é"));
    expect(response.status).toBe(201);
    const platform = await json(response);
    expect(platform.tools).toHaveLength(440);
    expect((await call(`/v1/platforms/${platform.platform_id}`, { token: key })).status).toBe(200);
  });
});
