// Writes client/src/schema.d.ts from the hub's OpenAPI document, built in Node from the app's own
// routes (no hub needs to run). `npm run client:generate`.
import { writeFileSync } from "node:fs";
import { register } from "node:module";
import { SCHEMA_FILE, schemaTypes } from "./schema-types.ts";

register("./worker-stubs.mjs", import.meta.url);
// By URL, so the type check of this script does not take in the whole Worker.
const { createApp } = await import(new URL("../../src/app.ts", import.meta.url).href);

// The same handler as GET /v1/openapi.json; building the document reads no binding, but the
// request's set-up wants an environment and an execution context to exist.
const noWork = { waitUntil() {}, passThroughOnException() {}, props: {} };
const response = (await createApp().request("http://hub.invalid/v1/openapi.json", {}, { ENVIRONMENT: "sandbox", DB: {} }, noWork)) as Response;
if (!response.ok) throw new Error(`building the OpenAPI document failed: HTTP ${response.status} ${await response.text()}`);
writeFileSync(SCHEMA_FILE, await schemaTypes(await response.json()));
console.log(`wrote ${SCHEMA_FILE.pathname}`);
