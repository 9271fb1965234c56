/** Small helpers that turn OpenAPI schema objects into one-line descriptions for the docs page. */
type Schema = Record<string, any>;

export function resolve(schema: Schema | undefined, components: Record<string, Schema>): Schema {
  let current = schema ?? {};
  for (let depth = 0; current.$ref && depth < 10; depth++) {
    current = components[String(current.$ref).split("/").pop()!] ?? {};
  }
  return current;
}

export function typeLabel(schema: Schema | undefined, components: Record<string, Schema>): string {
  if (!schema) return "any";
  if (schema.$ref) return String(schema.$ref).split("/").pop()!;
  if (schema.enum) return schema.enum.map((v: unknown) => JSON.stringify(v)).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.anyOf || schema.oneOf) {
    return (schema.anyOf ?? schema.oneOf).map((s: Schema) => typeLabel(s, components)).join(" | ");
  }
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type;
  if (type === "array") return `array of ${typeLabel(schema.items, components)}`;
  return type ?? "object";
}

export interface Field {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

/** The top-level fields of an object schema. */
export function fieldsOf(schema: Schema | undefined, components: Record<string, Schema>): Field[] {
  const resolved = resolve(schema, components);
  const required: string[] = resolved.required ?? [];
  return Object.entries<Schema>(resolved.properties ?? {}).map(([name, property]) => ({
    name,
    type: typeLabel(property, components),
    required: required.includes(name),
    description: resolve(property, components).description ?? "",
  }));
}
