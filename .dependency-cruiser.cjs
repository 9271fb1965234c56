/**
 * The house reads top-down (CONTRIBUTING.md, "Where things live"): entry → app → feature routes →
 * services → kernel. `npm run layers` checks it on every `npm run check`.
 */
const FEATURES = "^src/(agent-loop|agents|alerts|approvals|auth|connections|conversations|dashboard|docs|evals|executions|governance|llm|mcp-server|me|memories|portability|scheduled|templates|tools|traces|usage|workflows|workspaces)/";
const KERNEL = "^src/(core|db|http|lib|net)/";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "No file imports itself through others: a circle makes load order matter (a constant read before it is defined) and " +
        "means the files are one unit. Type-only imports are erased at build time and do not count.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    {
      name: "no-cycles-between-folders",
      comment: "Feature folders and kernels may not import each other in a circle.",
      severity: "error",
      scope: "folder",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "kernel-imports-no-feature",
      comment: "core/, db/, http/, lib/ and net/ sit at the bottom: they import no feature folder.",
      severity: "error",
      from: { path: KERNEL },
      to: { path: FEATURES },
    },
    {
      name: "lib-and-db-at-the-bottom",
      comment: "lib/ (pure helpers) and db/ (the schema) import nothing else of ours.",
      severity: "error",
      from: { path: "^src/(lib|db)/" },
      to: { path: "^src/", pathNot: "^src/(lib|db)/" },
    },
    {
      name: "net-on-lib-only",
      comment: "net/ (outbound calls, address policy) builds on lib/ only.",
      severity: "error",
      from: { path: "^src/net/" },
      to: { path: "^src/", pathNot: "^src/(lib|net)/" },
    },
    {
      name: "nothing-imports-the-entry",
      comment: "Only the runtime loads src/index.ts and src/app.ts.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/index\\.ts$" },
      to: { path: "^src/(index|app)\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(test|bench|scripts)/" },
  },
};
