import { z } from "@hono/zod-openapi";

/** A JSON Schema document, as tools publish their inputs. */
export type JsonSchema = Record<string, unknown>;

const cache = new WeakMap<z.ZodType, JsonSchema>();

/** JSON Schema of a tool's input (what callers send: defaults make fields optional). */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  let json = cache.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
    delete json.$schema;
    cache.set(schema, json);
  }
  return json;
}

/** Tool names must suit every model provider's function-name rules: ^[a-zA-Z0-9_-]{1,64}$. */
export function toolNameFragment(raw: string, max: number): string {
  return raw.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, max) || "tool";
}
