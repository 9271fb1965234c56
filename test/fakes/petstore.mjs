// A stand-in for the Swagger Petstore 3 API (test/fixtures/petstore-openapi.json, whose server is
// https://petstore3.swagger.io/api/v3), answering as its reference server does
// (swagger-api/swagger-petstore, PetController): pets as JSON, "Pet not found" as a plain 404, a
// 400 for a status outside available/pending/sold. The api_key header must be "special-key" (the
// key the Petstore documents for trying its authorization filter), else 401.
// Served by platform-fake.mjs for scenarios whose name starts with "petstore"
// (base_url = <fake>/s/petstore-<test>), which records every request as for other platforms.

const seed = () => [
  { id: 1, name: "Rex", category: { id: 1, name: "Dogs" }, photoUrls: [], tags: [{ id: 1, name: "good" }], status: "available" },
  { id: 2, name: "Tom", category: { id: 2, name: "Cats" }, photoUrls: [], tags: [{ id: 2, name: "lazy" }], status: "sold" },
  { id: 3, name: "Kitty", category: { id: 2, name: "Cats" }, photoUrls: [], tags: [{ id: 1, name: "good" }], status: "available" },
];
const STATUSES = ["available", "pending", "sold"];
const pets = new Map();
const petsOf = (scenario) => {
  if (!pets.has(scenario)) pets.set(scenario, seed());
  return pets.get(scenario);
};

const ANSWER = Symbol("answer");
const answer = (status, body, headers = {}) => ({ [ANSWER]: true, status, body, headers });
const plain = (status, text) => answer(status, text, { "Content-Type": "text/plain" });
const list = (value) => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** The Petstore's answer ({status, body, headers}) to a recorded request ({method, path, query, headers, body, scenario, url}), or undefined when it is not the Petstore's. */
export function petstoreAnswer(request) {
  if (!request.scenario.startsWith("petstore")) return undefined;
  const reply = respond(request);
  return reply && typeof reply === "object" && reply[ANSWER] ? reply : answer(200, reply);
}

function respond(request) {
  if (request.headers.api_key !== "special-key") return answer(401, { code: 401, message: "Unauthorized: missing or wrong api_key" });
  const all = petsOf(request.scenario);
  const byId = request.path.match(/^\/pet\/(\d+)$/);
  if (request.method === "GET" && request.path === "/pet/findByStatus") {
    const status = request.query.status ?? "available";
    if (!STATUSES.includes(status))
      return plain(400, `Input error: query parameter \`status value \`${status}\` is not in the allowable values \`[available, pending, sold]\``);
    return all.filter((pet) => pet.status === status);
  }
  if (request.method === "GET" && request.path === "/pet/findByTags") {
    const tags = request.url.searchParams.getAll("tags");
    return all.filter((pet) => pet.tags.some((tag) => tags.includes(tag.name)));
  }
  if (request.method === "GET" && byId) return all.find((pet) => pet.id === Number(byId[1])) ?? plain(404, "Pet not found");
  if (request.method === "DELETE" && byId) {
    const at = all.findIndex((pet) => pet.id === Number(byId[1]));
    if (at < 0) return plain(400, "Invalid pet value");
    all.splice(at, 1);
    return plain(200, "Pet deleted");
  }
  if ((request.method === "POST" || request.method === "PUT") && request.path === "/pet") {
    const pet = request.body;
    if (!pet || typeof pet !== "object" || typeof pet.name !== "string" || !Array.isArray(pet.photoUrls))
      return plain(400, "Invalid input: name and photoUrls are required");
    if (request.method === "PUT" && !all.some((p) => p.id === pet.id)) return plain(404, "Pet not found");
    const stored = { ...pet, id: pet.id ?? Math.max(0, ...all.map((p) => p.id)) + 1, tags: list(pet.tags) };
    pets.set(request.scenario, [...all.filter((p) => p.id !== stored.id), stored]);
    return stored;
  }
  return answer(404, { code: 404, message: `no Petstore operation for ${request.method} ${request.path}` });
}
