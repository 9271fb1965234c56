// Module hooks that let Node load the Worker's code just far enough to build its OpenAPI document:
// the Workers runtime's own modules and the sandbox's WebAssembly become empty stand-ins. Nothing
// that needs them runs while the document is built.
const WORKERS_RUNTIME = [
  "export class DurableObject {}",
  "export class WorkerEntrypoint {}",
  "export class WorkflowEntrypoint {}",
  "export class RpcTarget {}",
  "export class RpcStub {}",
  "export class EmailMessage {}",
  "export const env = {};",
  "export const exports = {};",
].join("\n");

export async function resolve(specifier, context, next) {
  if (specifier.startsWith("cloudflare:")) return { url: `data:text/javascript,${encodeURIComponent(WORKERS_RUNTIME)}`, shortCircuit: true };
  if (specifier.endsWith(".wasm")) return { url: "data:text/javascript,export default {};", shortCircuit: true };
  return next(specifier, context);
}
