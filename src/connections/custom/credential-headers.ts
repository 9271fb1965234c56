// Header parameters a document may declare that would carry the connection's credential. A tool's
// arguments are applied after the auth headers, so such a parameter would let the model's value
// replace the key: they are left out of the tool's input and never sent from arguments.

import type { CustomAuth, ToolDeclaration } from "./declarations";

/** Lowercase header names reserved for the credential: always Authorization, and an API key's own header. */
export function credentialHeadersOf(auth: CustomAuth): Set<string> {
  const names = new Set(["authorization"]);
  if (auth.kind === "api_key" && auth.in === "header") names.add(auth.name.toLowerCase());
  return names;
}

/** A stored declaration without credential header parameters (platforms stored before they were left out at import). */
export function withoutCredentialHeaders(declaration: ToolDeclaration, reserved: Set<string>): ToolDeclaration {
  const dropped = declaration.parameters.filter((p) => p.in === "header" && reserved.has(p.name.toLowerCase()));
  if (!dropped.length) return declaration;
  const properties = { ...(declaration.input_schema.properties as Record<string, unknown> | undefined) };
  for (const parameter of dropped) delete properties[parameter.property];
  const required = Array.isArray(declaration.input_schema.required)
    ? (declaration.input_schema.required as string[]).filter((name) => !dropped.some((p) => p.property === name))
    : undefined;
  const { required: _required, ...rest } = declaration.input_schema;
  return {
    ...declaration,
    parameters: declaration.parameters.filter((p) => !dropped.includes(p)),
    input_schema: { ...rest, properties, ...(required?.length ? { required } : {}) },
  };
}
