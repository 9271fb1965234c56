import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";

/** Where the generated types live, and the command that rewrites them. */
export const SCHEMA_FILE = new URL("../src/schema.d.ts", import.meta.url);
export const REGENERATE = "npm run client:generate";

/** The TypeScript types of an OpenAPI document, exactly as the checked-in schema file holds them. */
export async function schemaTypes(document: unknown): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], { alphabetize: true });
  return `${COMMENT_HEADER}// Regenerate with \`${REGENERATE}\`; a test fails when this file is stale.\n\n${astToString(ast)}`;
}
