// Import boundaries and cycles, checked by `npm run lint` (`depcruise`). Workspace packages resolve
// through their `parley-source` export condition (as vitest and tsx resolve them), so an import of
// `@parley/x` lands on that package's `src` entry and cycles are found across packages too. An
// import through a package's name has the dependency type `aliased-workspace`; any other import
// that lands in another package's folder (a relative path climbing into it) is a deep import.

const PRODUCT_ROOT = "^(apps|packages)/([^/]+)/";

// Test code: tests beside code (`*.test.ts`, `*.int.test.ts`, `*.e2e.test.ts`), the harness folders
// (`testing/`, exported as `@parley/x/testing`; `test-support/`; `tests/`, the fixtures beside a
// folder's tests), the API's fault suite (`faults/`) and the browser tests (`apps/web/e2e/`).
const TEST_CODE = "(\\.test\\.ts$|/(testing|test-support|tests|faults)/|^apps/web/e2e/)";

// session-core's folders, lowest first; each may import only from its own level and below:
//   schema/                        the shapes (zod schemas and their types); imports no other folder;
//   errors.ts, contract/           the closed error codes, and the tRPC procedures' contract and wire
//                                  limits: built on schema/ only;
//   ports/                         what the runtime needs of the world (store, bus, leases, auth, inbox,
//                                  clock, logger): schema/ and errors.ts;
//   store/                         rules every store implementation shares: schema/, ports/, errors.ts;
//   tools/                         the built-in agent tools: the levels below, never runtime/;
//   adapters/                      session-core's in-memory implementations of the ports: the levels
//                                  below, never runtime/ (a port an adapter needs lives in ports/);
//   runtime/                       everything below, never adapters/ (it is handed its ports);
//   index.ts, wire.ts              the entry points, exporting from every level.
// testing/ is test code (see TEST_CODE): no product file imports it (product-never-imports-test-code).
const CORE = "^packages/session-core/src/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "Modules must not depend on each other in a ring, type-only imports included: extract the shared piece " +
        "into a module both can import.",
      from: {},
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment:
        "An import that does not resolve is a typo, an undeclared package or a path behind a package's `exports` " +
        "(such as `@parley/x/src/...`).",
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: "product-never-imports-test-code",
      severity: "error",
      comment:
        "Product code (apps/*/src, packages/*/src) never imports test code (TEST_CODE above: tests, testing/, " +
        "test-support/, tests/, faults/, the browser tests): what a deployment runs must not depend on, or " +
        "ship, what only tests need. Fault injection reaches a process from outside (a `node --import` preload, " +
        "an adapter wrapping a port), never through a hook the product reads.",
      from: { path: "^(apps|packages)/[^/]+/src/", pathNot: TEST_CODE },
      to: { path: TEST_CODE },
    },
    {
      name: "core-schema-imports-no-other-folder",
      severity: "error",
      comment:
        "session-core's schema/ is the lowest level (see the folder order above): it imports only schema/.",
      from: { path: `${CORE}schema/` },
      to: { path: CORE, pathNot: `${CORE}schema/` },
    },
    {
      name: "core-contract-and-errors-import-only-schema",
      severity: "error",
      comment: "session-core's contract/ and errors.ts build on schema/ alone (see the folder order above).",
      from: { path: `${CORE}(contract/|errors\\.ts$)` },
      to: { path: CORE, pathNot: `${CORE}(schema/|contract/|errors\\.ts$)` },
    },
    {
      name: "core-ports-import-only-schema-and-errors",
      severity: "error",
      comment:
        "session-core's ports/ describe what the runtime needs in schema/ terms: schema/ and errors.ts only.",
      from: { path: `${CORE}ports/` },
      to: { path: CORE, pathNot: `${CORE}(schema/|ports/|errors\\.ts$)` },
    },
    {
      name: "core-store-imports-only-schema-ports-and-errors",
      severity: "error",
      comment:
        "session-core's store/ (rules every store shares) sits on the ports: schema/, ports/ and errors.ts only.",
      from: { path: `${CORE}store/` },
      to: { path: CORE, pathNot: `${CORE}(schema/|ports/|store/|errors\\.ts$)` },
    },
    {
      name: "core-tools-and-adapters-never-import-the-runtime",
      severity: "error",
      comment:
        "session-core's tools/ and adapters/ sit below runtime/, which uses them (see the folder order above): " +
        "what both need (a logger, an id source) is a port.",
      from: { path: `${CORE}(tools|adapters)/`, pathNot: TEST_CODE },
      to: { path: `${CORE}runtime/` },
    },
    {
      name: "core-runtime-never-imports-the-adapters",
      severity: "error",
      comment:
        "session-core's runtime/ works on the ports it is handed (composeRuntime); the in-memory adapters are " +
        "one implementation of them, chosen by the composer or a test.",
      from: { path: `${CORE}runtime/`, pathNot: TEST_CODE },
      to: { path: `${CORE}adapters/` },
    },
    {
      name: "session-core-imports-no-workspace-package",
      severity: "error",
      comment:
        "session-core is the domain: the adapters (db), the transport (api, sdk), the tools and the web app " +
        "depend on it, never the other way round.",
      from: { path: "^packages/session-core/" },
      to: { path: "^(apps/|packages/(?!session-core/))" },
    },
    {
      name: "session-core-imports-nothing-from-node",
      severity: "error",
      comment:
        "session-core runs anywhere JavaScript does: no `node:` modules (I/O belongs to the adapters).",
      from: { path: "^packages/session-core/" },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "web-never-imports-db",
      severity: "error",
      comment: "The web app talks to Parley only through the SDK; the database is the API server's.",
      from: { path: "^apps/web/", pathNot: "^apps/web/e2e/" },
      to: { path: "^packages/db/" },
    },
    {
      name: "web-imports-wire-types-through-the-sdk",
      severity: "error",
      comment:
        "The web app talks to Parley through the SDK, which re-exports every wire type, schema and limit the " +
        "web needs: one client vocabulary, so the web never reaches past its client into the domain package.",
      from: { path: "^apps/web/src/" },
      to: { path: "^packages/session-core/" },
    },
    {
      name: "web-e2e-uses-only-db-testing",
      severity: "error",
      comment: "Browser tests may create and drop scratch databases (`@parley/db/testing`), nothing more.",
      from: { path: "^apps/web/e2e/" },
      to: { path: "^packages/db/", pathNot: "^packages/db/src/testing/" },
    },
    {
      name: "api-serves-without-the-sdk",
      severity: "error",
      comment:
        "The SDK is the API's client: only the API's tests and test harnesses drive the API through it " +
        "(a devDependency); the server itself never imports it.",
      from: { path: "^apps/api/src/", pathNot: "(\\.test\\.ts$|/testing/)" },
      to: { path: "^packages/sdk/" },
    },
    {
      name: "sdk-never-imports-the-api",
      severity: "error",
      comment:
        "The package graph is one-way: api (its tests) → sdk → session-core. The SDK types its calls from the " +
        "contract in session-core, and its end-to-end tests live in the API (apps/api/src/sdk/), so no file of " +
        "the SDK, tests included, imports the API: that would make the two packages a cycle, which the module " +
        "cycle check does not see (no single module ring closes).",
      from: { path: "^packages/sdk/" },
      to: { path: "^apps/" },
    },
    {
      name: "no-deep-import-into-another-package",
      severity: "error",
      comment:
        "Import another workspace package by its name (`@parley/x`, `@parley/x/testing`), which goes through " +
        "its public `exports`, never by a relative path into its folder.",
      from: { path: PRODUCT_ROOT },
      to: { path: "^(apps|packages)/", pathNot: "^$1/$2/", dependencyTypesNot: ["aliased-workspace"] },
    },
    {
      name: "nothing-imports-the-bench",
      severity: "error",
      comment:
        "The bench (`@parley/bench`) measures the product from outside: no product code or script depends on it.",
      from: { path: "^(apps|packages|scripts)/" },
      to: { path: "^bench/" },
    },
    {
      name: "bench-and-scripts-use-public-entry-points",
      severity: "error",
      comment: "Benchmarks and scripts use packages through their names, as any other consumer does.",
      from: { path: "^(bench|scripts)/" },
      to: { path: "^(apps|packages)/", dependencyTypesNot: ["aliased-workspace"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: {
      path: "(^|/)(node_modules|dist|\\.next|\\.turbo|\\.parley|test-results|playwright-report)/|^prisma/|^bench/results/",
    },
    tsPreCompilationDeps: true,
    // The only `paths` in the repository are the web app's `@/…` (its own `src`); this tsconfig
    // maps them from the root for the cruise.
    tsConfig: { fileName: "tsconfig.depcruise.json" },
    combinedDependencies: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["parley-source", "import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
      extensions: [".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".d.ts", ".json"],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
