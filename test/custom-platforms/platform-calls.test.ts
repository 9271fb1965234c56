// A custom platform's connection and tools work as any platform's (DESIGN §5): the Swagger Petstore
// 3 document's operations called against a local Petstore (test/fakes/petstore.mjs), through the
// same client (auth header, outbound checks, governor, the usual error reading).
import { describe, expect, it } from "vitest";
import { call, expectProblem, json, newApiKey, newUser } from "../helpers/api";
import { addPetstore, petstoreScenario, requestsOf, scenarioUrl } from "./helpers";
import { env } from "cloudflare:workers";

async function petstoreConnection(key: string, scenario: string, apiKey = "special-key") {
  const id = await addPetstore(key);
  const response = await call("/v1/connections", {
    token: key,
    json: { platform: id, name: "Pets", config: { api_key: apiKey, base_url: scenarioUrl(scenario) } },
  });
  expect(response.status).toBe(201);
  return { id, connection: await json(response) };
}

const execute = (key: string, name: string, args: Record<string, unknown>) => call("/v1/tools/execute", { token: key, json: { name, arguments: args } });

describe("calling a custom platform's tools", () => {
  it("shows the connection with its key masked, and lists the platform's tools as available", async () => {
    const { key } = await newApiKey(await newUser());
    const { id, connection } = await petstoreConnection(key, petstoreScenario("list"));
    expect(connection).toMatchObject({ platform: id, status: "active", auth_mode: "config" });
    expect(connection.config.api_key).toBe("••••");
    expect(JSON.stringify(connection)).not.toContain("special-key");
    const tools = (await json(await call("/v1/tools", { token: key }))).tools;
    const mine = tools.filter((t: any) => t.platform === id);
    expect(mine).toHaveLength(19);
    const getPet = mine.find((t: any) => t.name === `${id}_get_pet_by_id`);
    expect(getPet).toMatchObject({ source: "platform", available: true, connection_id: connection.connection_id });
    expect(getPet.input_schema.properties).toHaveProperty("petId");
    expect(getPet.input_schema.properties).toHaveProperty("connection_id");
    // The platform is listed with the declared ones, with the config a connection needs.
    const platforms = (await json(await call("/v1/connections/platforms", { token: key }))).data;
    expect(platforms.find((p: any) => p.id === id)).toMatchObject({ auth_kind: "api_key", secret_fields: ["api_key"] });
    expect(platforms.find((p: any) => p.id === "slack")).toBeDefined();
    // Another user sees none of them.
    const stranger = await newApiKey(await newUser());
    const theirs = (await json(await call("/v1/tools?all=true", { token: stranger.key }))).tools;
    expect(theirs.some((t: any) => t.platform === id)).toBe(false);
    await expectProblem(await execute(stranger.key, `${id}_get_pet_by_id`, { petId: 1 }), 404, "not_found");
    const theirPlatforms = (await json(await call("/v1/connections/platforms", { token: stranger.key }))).data;
    expect(theirPlatforms.some((p: any) => p.id === id)).toBe(false);
  });

  it("sends the operation's method, path, query, header and JSON body, with the API key where the document says", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = petstoreScenario("calls");
    const { id } = await petstoreConnection(key, scenario);

    const found = await json(await execute(key, `${id}_find_pets_by_status`, { status: "sold" }));
    expect(found).toMatchObject({ success: true, result: [{ id: 2, name: "Tom", status: "sold" }] });

    // An exploded array query parameter (the document's default): one `tags` key per value, all read by the API.
    const tagged = await json(await execute(key, `${id}_find_pets_by_tags`, { tags: ["good", "lazy"] }));
    expect(tagged.result.map((p: any) => p.name).sort()).toEqual(["Kitty", "Rex", "Tom"]);

    const pet = { name: "Bolt", photoUrls: ["https://example.com/bolt.png"], status: "pending", category: { id: 1, name: "Dogs" } };
    const added = await json(await execute(key, `${id}_add_pet`, { body: pet }));
    expect(added).toMatchObject({ success: true, result: { ...pet, id: 4 } });

    const deleted = await json(await execute(key, `${id}_delete_pet`, { petId: 4, api_key: "special-key" }));
    expect(deleted).toMatchObject({ success: true });

    const sent = await requestsOf(scenario);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /pet/findByStatus", "GET /pet/findByTags", "POST /pet", "DELETE /pet/4"]);
    expect(sent[0].query).toEqual({ status: "sold" });
    expect(sent.every((r) => r.headers.api_key === "special-key")).toBe(true);
    expect(sent[2].headers["content-type"]).toBe("application/json");
    expect(sent[2].body).toEqual(pet);
  });

  it("checks arguments against the operation's schema before calling", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = petstoreScenario("args");
    const { id } = await petstoreConnection(key, scenario);
    const problem = await expectProblem(await execute(key, `${id}_add_pet`, { body: { name: "No photos" } }), 422, "validation_failed");
    expect(JSON.stringify(problem.errors)).toContain("photoUrls");
    await expectProblem(await execute(key, `${id}_find_pets_by_status`, { status: "lost" }), 422, "validation_failed");
    await expectProblem(await execute(key, `${id}_no_such_operation`, {}), 404, "not_found");
    // A dot segment would climb out of the operation's path: refused before anything is sent.
    for (const username of ["..", ".%2E"]) {
      const climbed = await json(await execute(key, `${id}_get_user_by_name`, { username }));
      expect(climbed).toMatchObject({ success: false, retryable: false });
      expect(climbed.error_message).toContain("path parameter username");
    }
    expect(await requestsOf(scenario)).toEqual([]);
  });

  it("reports the API's 404 as a permanent failure with its own message", async () => {
    const { key } = await newApiKey(await newUser());
    const { id } = await petstoreConnection(key, petstoreScenario("missing"));
    const result = await json(await execute(key, `${id}_get_pet_by_id`, { petId: 999 }));
    expect(result).toMatchObject({
      success: false,
      error_status: 404,
      retryable: false,
      error_message: "Swagger Petstore - OpenAPI 3.0 answered 404: Pet not found",
    });
  });

  it("reports a 429 with Retry-After as transient, with the wait the API asked for", async () => {
    const { key } = await newApiKey(await newUser());
    const scenario = petstoreScenario("limited");
    const { id } = await petstoreConnection(key, scenario);
    await fetch(`${env.TEST_FAKE_URL}/__script/${scenario}`, {
      method: "POST",
      body: JSON.stringify([{ status: 429, body: { code: 429, message: "Too many requests" }, headers: { "Retry-After": "1" } }]),
    });
    const result = await json(await execute(key, `${id}_get_inventory`, {}));
    expect(result).toMatchObject({ success: false, error_status: 429, retryable: true, retry_after_seconds: 1 });
    expect(result.error_message).toContain("answered 429: Too many requests");
  });

  it("marks the connection failing when the API refuses its key", async () => {
    const { key } = await newApiKey(await newUser());
    const { id, connection } = await petstoreConnection(key, petstoreScenario("refused"), "wrong-key");
    const result = await json(await execute(key, `${id}_get_inventory`, {}));
    expect(result).toMatchObject({ success: false, error_status: 401, retryable: false });
    const after = await json(await call(`/v1/connections/${connection.connection_id}`, { token: key }));
    expect(after.status).toBe("error");
  });

  it("refuses a connection whose base_url points at a metadata address", async () => {
    const { key } = await newApiKey(await newUser());
    const id = await addPetstore(key);
    const response = await call("/v1/connections", {
      token: key,
      json: { platform: id, name: "Pets", config: { api_key: "k", base_url: "http://169.254.169.254/latest" } },
    });
    const connection = await json(response);
    const result = await json(await execute(key, `${id}_get_inventory`, { connection_id: connection.connection_id }));
    expect(result).toMatchObject({ success: false, retryable: false });
    expect(result.error_message).toMatch(/never reachable/);
  });
});
