/** The QuickJS build as a WebAssembly module: wrangler (and the test pool) compile the .wasm at build time. */
declare module "@jitl/quickjs-wasmfile-release-sync/wasm" {
  const module: WebAssembly.Module;
  export default module;
}
