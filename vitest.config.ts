import { defineConfig } from "vitest/config";

// `parley-source` resolves workspace packages to their TypeScript sources, so tests need no build.
// Only that condition: vitest also passes these conditions to Node (`--conditions`) in its workers;
// an `import` condition there makes CommonJS `require` load ESM wrappers (pg → pg-pool breaks), and
// the common name `source` would also match third-party packages that publish TypeScript sources
// under it (eventsource-parser), which Node cannot load.
const resolveSource = { conditions: ["parley-source"] };

export default defineConfig({
  resolve: resolveSource,
  ssr: { resolve: { conditions: ["parley-source"], externalConditions: ["parley-source"] } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: [
            "packages/*/src/**/*.test.ts",
            "apps/api/src/**/*.test.ts",
            "apps/web/src/**/*.test.ts",
            "bench/**/*.test.ts",
            "scripts/**/*.test.ts",
          ],
          exclude: ["**/*.int.test.ts", "**/*.e2e.test.ts", "**/node_modules/**"],
          // A bound for a hang, not for speed: the slowest unit cases (1,000 sessions opened, 300
          // rounds of file-system churn, a full approval over HTTP) take 1-3 s alone and past the
          // 5 s default when the int and e2e projects load the same 2 cores.
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: "int",
          include: ["packages/*/src/**/*.int.test.ts", "apps/api/src/**/*.int.test.ts"],
          globalSetup: ["packages/db/src/testing/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["apps/api/src/**/*.e2e.test.ts"],
          // The API processes run the build: the check refuses one older than its sources.
          globalSetup: ["apps/api/src/testing/built-api-check.ts", "packages/db/src/testing/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
          // One worker runs every file in one module graph: each file starts its own API processes,
          // databases and clients and closes them, so nothing of one file reaches the next, and the
          // per-file worker start and imports (about 3 s a file, 43 files) are paid once.
          isolate: false,
        },
      },
    ],
  },
});
