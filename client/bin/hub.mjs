#!/usr/bin/env node
// The `hub` command. Its TypeScript runs as it is, on Node 22.18 or later (type stripping); the
// npm scripts and `npx hub` use the Node that `npm install` put in node_modules.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(`hub needs Node 22.18 or later (this is ${process.version}); run it as \`npx hub\` or \`npm run -s hub --\` in the repository.`);
  process.exit(1);
}
await import("../src/cli/main.ts");
