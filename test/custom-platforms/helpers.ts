import { env } from "cloudflare:workers";
import petstore from "../fixtures/petstore-openapi.json";
import { call, json } from "../helpers/api";

/** A fresh copy of the Swagger Petstore 3 document (tests change copies, never the fixture). */
export const petstoreDocument = (): Record<string, any> => structuredClone(petstore) as Record<string, any>;

export async function addPlatform(token: string, openapi: unknown, name?: string) {
  return call("/v1/platforms", { token, json: { openapi, ...(name ? { name } : {}) } });
}

/** Adds the Petstore as a custom platform and answers its id. */
export async function addPetstore(token: string): Promise<string> {
  const response = await addPlatform(token, petstoreDocument());
  if (response.status !== 201) throw new Error(`add platform failed: ${response.status} ${await response.text()}`);
  return (await json(response)).platform_id;
}

/** A scenario of the platform fake that answers as the Petstore (test/fakes/petstore.mjs). */
export const petstoreScenario = (name: string) => `petstore-${name}-${Math.random().toString(36).slice(2, 8)}`;
export const scenarioUrl = (scenario: string) => `${env.TEST_FAKE_URL}/s/${scenario}`;

export async function requestsOf(scenario: string): Promise<any[]> {
  return (await fetch(`${env.TEST_FAKE_URL}/__requests/${scenario}`)).json();
}
