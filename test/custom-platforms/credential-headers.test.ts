// A document that declares its credential's header as an operation parameter (the Petstore's
// deletePet takes `api_key` in the header, the header its API key scheme uses): the tool does not
// offer it, and a model's value for it never replaces the connection's key.
import { describe, expect, it } from "vitest";
import { platformOf, requestFor } from "../../src/connections/custom/custom-platform";
import type { ToolDeclaration } from "../../src/connections/custom/declarations";
import { importOpenApi } from "../../src/connections/custom/openapi-import";
import type { CustomPlatformRow } from "../../src/db/schema";
import { call, json, newApiKey, newUser } from "../helpers/api";
import { addPetstore, petstoreScenario, requestsOf, scenarioUrl } from "./helpers";

const policy = { allowPrivateNetworks: false };
const documentWith = (scheme: Record<string, unknown>) => ({
  openapi: "3.0.3",
  info: { title: "API", version: "1" },
  servers: [{ url: "https://api.example.com" }],
  components: { securitySchemes: { key: scheme } },
  paths: {
    "/items": {
      get: {
        operationId: "listItems",
        parameters: [
          { name: "X-Api-Key", in: "header", required: true, schema: { type: "string" } },
          { name: "authorization", in: "header", schema: { type: "string" } },
          { name: "X-Trace", in: "header", schema: { type: "string" } },
        ],
        responses: { 200: { description: "ok" } },
      },
    },
  },
});

describe("credential headers declared as parameters", () => {
  it("leaves the API key's header (any case) and Authorization out of the tool's input", () => {
    const [tool] = importOpenApi(documentWith({ type: "apiKey", in: "header", name: "x-api-key" }), { policy }).tools;
    expect(Object.keys(tool!.input_schema.properties as object)).toEqual(["X-Trace"]);
    expect(tool!.input_schema.required).toBeUndefined();
    expect(tool!.parameters.map((p) => p.name)).toEqual(["X-Trace"]);
    // With bearer auth the API key header is an ordinary parameter; Authorization still is not.
    const [bearer] = importOpenApi(documentWith({ type: "http", scheme: "bearer" }), { policy }).tools;
    expect(Object.keys(bearer!.input_schema.properties as object)).toEqual(["X-Api-Key", "X-Trace"]);
  });

  it("never sends them from arguments, even for a platform stored before they were left out", () => {
    const auth = { kind: "api_key" as const, scheme: "key", in: "header" as const, name: "x-api-key" };
    const stored: ToolDeclaration = {
      action: "list_items",
      operation_id: "listItems",
      title: "listItems",
      description: "GET /items",
      method: "GET",
      path: "/items",
      parameters: [
        { name: "X-Api-Key", in: "header", property: "X-Api-Key", required: true },
        { name: "Authorization", in: "header", property: "Authorization", required: false },
        { name: "X-Trace", in: "header", property: "X-Trace", required: false },
      ],
      body: null,
      input_schema: {
        type: "object",
        properties: { "X-Api-Key": { type: "string" }, Authorization: { type: "string" }, "X-Trace": { type: "string" } },
        required: ["X-Api-Key"],
      },
    };
    const args = { "X-Api-Key": "model-chosen", Authorization: "Bearer model-chosen", "X-Trace": "t1" };
    expect(requestFor(stored, args, auth, { api_key: "the-key" }).headers).toEqual({ "X-Trace": "t1" });
    const row: CustomPlatformRow = {
      id: 1,
      uid: "cp_zz00zz00",
      userId: 1,
      name: "API",
      description: "",
      openapiVersion: "3.0.3",
      serverUrl: "https://api.example.com",
      auth,
      tools: [stored],
      toolCount: 1,
      toolsBytes: 0,
      createdAt: new Date(),
    };
    const tool = platformOf(row).tools[0]!;
    const schema = (tool.input as any).meta?.() ?? {};
    expect(Object.keys(schema.properties ?? {})).toEqual(["X-Trace", "connection_id"]);
    expect(schema.required).toBeUndefined();
    // The model may omit the key it no longer sees.
    expect(tool.input.safeParse({ "X-Trace": "t1" }).success).toBe(true);
  });

  it("calls the Petstore's deletePet with the connection's key, whatever api_key the arguments carry", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = petstoreScenario("credential");
    const id = await addPetstore(key);
    const connected = await call("/v1/connections", {
      token: key,
      json: { platform: id, name: "Pets", config: { api_key: "special-key", base_url: scenarioUrl(scenario) } },
    });
    expect(connected.status).toBe(201);
    const tools = (await json(await call("/v1/tools", { token: key }))).tools;
    const deletePet = tools.find((t: any) => t.name === `${id}_delete_pet`);
    expect(Object.keys(deletePet.input_schema.properties)).toEqual(["petId", "connection_id"]);
    const result = await json(
      await call("/v1/tools/execute", { token: key, json: { name: `${id}_delete_pet`, arguments: { petId: 1, api_key: "model-chosen" } } }),
    );
    expect(result).toMatchObject({ success: true });
    const [sent] = await requestsOf(scenario);
    expect(sent).toMatchObject({ method: "DELETE", path: "/pet/1" });
    expect(sent.headers.api_key).toBe("special-key");
  });
});
