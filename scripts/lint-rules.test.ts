// Each import rule of .dependency-cruiser.cjs and the file-size check, shown to fail on a planted
// violation: a scratch repository laid out like this one (workspace packages under apps/ and
// packages/, linked by name from node_modules/@parley as npm links them) holds a clean layout, and
// each case adds one minimal violating file pair to it. A rule that no case plants fails the test,
// so a new rule needs its planted violation too.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import { afterEach, describe, expect, it } from "vitest";
import { checkFileSizes, MAX_LINES } from "./check-file-size.mjs";

const repoRoot = join(import.meta.dirname, "..");
const depcruiseConfig = createRequire(import.meta.url)(join(repoRoot, ".dependency-cruiser.cjs"));
const ruleNames: string[] = depcruiseConfig.forbidden.map((rule: { name: string }) => rule.name);

const WORKSPACES: Record<string, string> = {
  "@parley/session-core": "packages/session-core",
  "@parley/db": "packages/db",
  "@parley/tools": "packages/tools",
  "@parley/sdk": "packages/sdk",
  "@parley/api": "apps/api",
  "@parley/web": "apps/web",
  "@parley/bench": "bench",
};

type Files = Record<string, string>;

/** The clean layout: every package imported the allowed way. */
const CLEAN: Files = {
  "packages/session-core/src/index.ts": "export const core = 1;\n",
  "packages/db/src/index.ts": 'import { core } from "@parley/session-core";\nexport const db = core;\n',
  "packages/db/src/testing/index.ts": "export const scratchDatabase = 1;\n",
  "packages/tools/src/index.ts": 'import { core } from "@parley/session-core";\nexport const tools = core;\n',
  "packages/sdk/src/index.ts": 'export { core as sdk } from "@parley/session-core";\n',
  "apps/api/src/index.ts":
    'import { db } from "@parley/db";\nimport { tools } from "@parley/tools";\nexport const api = db + tools;\n',
  "apps/api/src/server.test.ts":
    'import { sdk } from "@parley/sdk";\nimport { scratchDatabase } from "@parley/db/testing";\nexport const drives = sdk + scratchDatabase;\n',
  "packages/session-core/src/testing/index.ts":
    'import { core } from "../index.js";\nexport const fixture = core;\n',
  "packages/session-core/src/runtime/tests/fixtures.ts":
    'export { fixture } from "../../testing/index.js";\n',
  "apps/web/src/index.ts": 'import { sdk } from "@parley/sdk";\nexport const web = sdk;\n',
  "apps/web/e2e/stack.ts":
    'import { scratchDatabase } from "@parley/db/testing";\nexport const e2e = scratchDatabase;\n',
  "bench/main.ts": 'import { api } from "@parley/api";\nexport const bench = api;\n',
  "scripts/start.mjs": 'import { api } from "@parley/api";\nexport const start = api;\n',
};

/** Per rule: the file pair that breaks it (added to the clean layout) and the violation's ends. */
const PLANTED: Record<string, { files: Files; from: string; to: string }> = {
  "no-circular": {
    files: {
      "packages/tools/src/ring-a.ts": 'import { b } from "./ring-b.js";\nexport const a = () => b;\n',
      "packages/tools/src/ring-b.ts": 'import { a } from "./ring-a.js";\nexport const b = () => a;\n',
    },
    from: "packages/tools/src/ring-a.ts",
    to: "packages/tools/src/ring-b.ts",
  },
  "not-to-unresolvable": {
    files: { "packages/tools/src/typo.ts": 'export { gone } from "./no-such-module.js";\n' },
    from: "packages/tools/src/typo.ts",
    to: "./no-such-module.js",
  },
  "product-never-imports-test-code": {
    files: { "packages/db/src/pool.ts": 'export { scratchDatabase } from "@parley/db/testing";\n' },
    from: "packages/db/src/pool.ts",
    to: "packages/db/src/testing/index.ts",
  },
  "core-schema-imports-no-other-folder": {
    files: {
      "packages/session-core/src/schema/session.ts": 'export { port } from "../ports/store.js";\n',
      "packages/session-core/src/ports/store.ts": "export const port = 1;\n",
    },
    from: "packages/session-core/src/schema/session.ts",
    to: "packages/session-core/src/ports/store.ts",
  },
  "core-contract-and-errors-import-only-schema": {
    files: {
      "packages/session-core/src/errors.ts": 'export { rule } from "./store/rules.js";\n',
      "packages/session-core/src/store/rules.ts": "export const rule = 1;\n",
    },
    from: "packages/session-core/src/errors.ts",
    to: "packages/session-core/src/store/rules.ts",
  },
  "core-ports-import-only-schema-and-errors": {
    files: {
      "packages/session-core/src/ports/event-bus.ts": 'export { options } from "../store/options.js";\n',
      "packages/session-core/src/store/options.ts": "export const options = 1;\n",
    },
    from: "packages/session-core/src/ports/event-bus.ts",
    to: "packages/session-core/src/store/options.ts",
  },
  "core-store-imports-only-schema-ports-and-errors": {
    files: {
      "packages/session-core/src/store/cursor.ts": 'export { shell } from "../tools/shell.js";\n',
      "packages/session-core/src/tools/shell.ts": "export const shell = 1;\n",
    },
    from: "packages/session-core/src/store/cursor.ts",
    to: "packages/session-core/src/tools/shell.ts",
  },
  "core-tools-and-adapters-never-import-the-runtime": {
    files: {
      "packages/session-core/src/adapters/in-memory-bus.ts":
        'export { options } from "../runtime/options.js";\n',
      "packages/session-core/src/runtime/options.ts": "export const options = 1;\n",
    },
    from: "packages/session-core/src/adapters/in-memory-bus.ts",
    to: "packages/session-core/src/runtime/options.ts",
  },
  "core-runtime-never-imports-the-adapters": {
    files: {
      "packages/session-core/src/runtime/runtime.ts":
        'export { store } from "../adapters/in-memory-store.js";\n',
      "packages/session-core/src/adapters/in-memory-store.ts": "export const store = 1;\n",
    },
    from: "packages/session-core/src/runtime/runtime.ts",
    to: "packages/session-core/src/adapters/in-memory-store.ts",
  },
  "session-core-imports-no-workspace-package": {
    files: { "packages/session-core/src/store.ts": 'export { db } from "@parley/db";\n' },
    from: "packages/session-core/src/store.ts",
    to: "packages/db/src/index.ts",
  },
  "session-core-imports-nothing-from-node": {
    files: { "packages/session-core/src/read.ts": 'export { readFileSync } from "node:fs";\n' },
    from: "packages/session-core/src/read.ts",
    to: "fs",
  },
  "web-never-imports-db": {
    files: { "apps/web/src/page.ts": 'export { db } from "@parley/db";\n' },
    from: "apps/web/src/page.ts",
    to: "packages/db/src/index.ts",
  },
  "web-imports-wire-types-through-the-sdk": {
    files: { "apps/web/src/card.ts": 'export { core } from "@parley/session-core";\n' },
    from: "apps/web/src/card.ts",
    to: "packages/session-core/src/index.ts",
  },
  "web-e2e-uses-only-db-testing": {
    files: { "apps/web/e2e/seed.ts": 'export { db } from "@parley/db";\n' },
    from: "apps/web/e2e/seed.ts",
    to: "packages/db/src/index.ts",
  },
  "api-serves-without-the-sdk": {
    files: { "apps/api/src/router.ts": 'export { sdk } from "@parley/sdk";\n' },
    from: "apps/api/src/router.ts",
    to: "packages/sdk/src/index.ts",
  },
  "sdk-never-imports-the-api": {
    files: { "packages/sdk/src/client.test.ts": 'export { api } from "@parley/api";\n' },
    from: "packages/sdk/src/client.test.ts",
    to: "apps/api/src/index.ts",
  },
  "no-deep-import-into-another-package": {
    files: { "apps/api/src/shell.ts": 'export { tools } from "../../../packages/tools/src/index.js";\n' },
    from: "apps/api/src/shell.ts",
    to: "packages/tools/src/index.ts",
  },
  "nothing-imports-the-bench": {
    files: { "packages/tools/src/timing.ts": 'export { bench } from "@parley/bench";\n' },
    from: "packages/tools/src/timing.ts",
    to: "bench/main.ts",
  },
  "bench-and-scripts-use-public-entry-points": {
    files: { "scripts/serve.mjs": 'export { api } from "../apps/api/src/index.ts";\n' },
    from: "scripts/serve.mjs",
    to: "apps/api/src/index.ts",
  },
};

const scratchRoots: string[] = [];
afterEach(() => {
  for (const root of scratchRoots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function writeFiles(root: string, files: Files): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

function scratchRepository(files: Files): string {
  const root = mkdtempSync(join(tmpdir(), "parley-lint-"));
  scratchRoots.push(root);
  writeFiles(root, {
    "package.json": JSON.stringify({
      name: "parley",
      type: "module",
      workspaces: ["apps/*", "packages/*", "bench"],
    }),
  });
  mkdirSync(join(root, "node_modules", "@parley"), { recursive: true });
  for (const [name, folder] of Object.entries(WORKSPACES)) {
    const entry = folder === "bench" ? "./main.ts" : "./src/index.ts";
    const exports = { ".": entry, "./testing": "./src/testing/index.ts" };
    writeFiles(root, { [`${folder}/package.json`]: JSON.stringify({ name, type: "module", exports }) });
    symlinkSync(join(root, folder), join(root, "node_modules", name), "dir");
  }
  writeFiles(root, { ...CLEAN, ...files });
  return root;
}

interface Cruise {
  modules: number;
  violations: { rule: string; from: string; to: string }[];
}

async function cruiseScratch(root: string): Promise<Cruise> {
  // The repository's rules and resolution, without its tsconfig (the `@/…` paths of the web app,
  // which no planted file uses).
  const { tsConfig: _tsConfig, ...options } = depcruiseConfig.options;
  const result = await cruise(["apps", "packages", "bench", "scripts"], {
    ...options,
    baseDir: root,
    validate: true,
    ruleSet: { forbidden: depcruiseConfig.forbidden },
  });
  const output = result.output as ICruiseResult;
  return {
    modules: output.summary.totalCruised,
    violations: output.summary.violations.map((violation) => ({
      rule: violation.rule.name,
      from: violation.from,
      to: violation.to,
    })),
  };
}

describe("dependency-cruiser rules (.dependency-cruiser.cjs)", () => {
  it("plants a violation for every rule", () => {
    expect(Object.keys(PLANTED).sort()).toEqual([...ruleNames].sort());
  });

  it("reports nothing on the clean layout, every file of which it cruises", async () => {
    expect(await cruiseScratch(scratchRepository({}))).toEqual({
      modules: Object.keys(CLEAN).length,
      violations: [],
    });
  });

  it.each(Object.entries(PLANTED))("reports exactly %s on its planted violation", async (rule, planted) => {
    const { violations } = await cruiseScratch(scratchRepository(planted.files));
    expect(violations).toEqual([{ rule, from: planted.from, to: planted.to }]);
  });
});

/**
 * `product-never-imports-test-code` covers every kind of test code (TEST_CODE of the config), not
 * only `testing/`, which its PLANTED case uses: each other kind planted here, imported by a product
 * file of the same package.
 */
const TEST_CODE_KINDS: Record<string, { from: string; to: string; specifier: string }> = {
  "a test beside the code (*.test.ts)": {
    from: "packages/db/src/pool.ts",
    to: "packages/db/src/pool.int.test.ts",
    specifier: "./pool.int.test.js",
  },
  "the API's fault suite (faults/)": {
    from: "apps/api/src/env.ts",
    to: "apps/api/src/faults/kill-switch.ts",
    specifier: "./faults/kill-switch.js",
  },
  "a harness (test-support/)": {
    from: "packages/db/src/pool.ts",
    to: "packages/db/src/test-support/worker.ts",
    specifier: "./test-support/worker.js",
  },
  "fixtures beside a folder's tests (tests/)": {
    from: "packages/tools/src/shell.ts",
    to: "packages/tools/src/tests/fixtures.ts",
    specifier: "./tests/fixtures.js",
  },
  "the browser tests (apps/web/e2e/)": {
    from: "apps/web/src/page.ts",
    to: "apps/web/e2e/stack.ts",
    specifier: "../e2e/stack.js",
  },
};

describe("product-never-imports-test-code, for each kind of test code", () => {
  it.each(Object.entries(TEST_CODE_KINDS))("reports product code importing %s", async (_kind, planted) => {
    const root = scratchRepository({
      [planted.from]: `export { planted } from "${planted.specifier}";\n`,
      [planted.to]: "export const planted = 1;\n",
    });
    expect((await cruiseScratch(root)).violations).toEqual([
      { rule: "product-never-imports-test-code", from: planted.from, to: planted.to },
    ]);
  });
});

function linesOf(count: number): string {
  return Array.from({ length: count }, (_, index) => `export const line${index} = ${index};\n`).join("");
}

describe(`file-size check (scripts/check-file-size.mjs): no product file over ${MAX_LINES} lines`, () => {
  function scratchSources(files: Files): string {
    const root = mkdtempSync(join(tmpdir(), "parley-file-size-"));
    scratchRoots.push(root);
    writeFiles(root, files);
    return root;
  }

  it(`passes a product file of exactly ${MAX_LINES} lines`, () => {
    expect(checkFileSizes(scratchSources({ "apps/web/src/page.tsx": linesOf(MAX_LINES) }))).toEqual([]);
  });

  it(`fails a product file of ${MAX_LINES + 1} lines`, () => {
    const root = scratchSources({ "packages/db/src/store.ts": linesOf(MAX_LINES + 1) });
    expect(checkFileSizes(root)).toEqual([
      `packages/db/src/store.ts: ${MAX_LINES + 1} lines (over ${MAX_LINES}): split it into files of one concept each`,
    ]);
  });

  it(`fails a stylesheet of ${MAX_LINES + 1} lines`, () => {
    const root = scratchSources({ "apps/web/src/styles/cards.css": ".card {}\n".repeat(MAX_LINES + 1) });
    expect(checkFileSizes(root)).toEqual([
      `apps/web/src/styles/cards.css: ${MAX_LINES + 1} lines (over ${MAX_LINES}): split it into files of one concept each`,
    ]);
  });

  it("ignores tests, test harnesses and browser tests", () => {
    const long = linesOf(MAX_LINES + 1);
    const root = scratchSources({
      "packages/db/src/store.test.ts": long,
      "packages/db/src/store.int.test.ts": long,
      "apps/api/src/server.e2e.test.ts": long,
      "packages/db/src/testing/fixtures.ts": long,
      "packages/db/src/test-support/worker.ts": long,
      "apps/api/src/faults/kill.ts": long,
      "apps/web/e2e/screens.spec.ts": long,
    });
    expect(checkFileSizes(root)).toEqual([]);
  });

  it("passes an allow-listed long file and fails a stale or reasonless allow-list entry", () => {
    const allowList = [
      "# comment",
      "packages/db/src/long.ts  # predates the check",
      "packages/db/src/short.ts  # was long once",
      "packages/db/src/unexplained.ts",
    ].join("\n");
    const root = scratchSources({
      "scripts/file-size-allow-list.txt": allowList,
      "packages/db/src/long.ts": linesOf(MAX_LINES + 1),
      "packages/db/src/short.ts": linesOf(MAX_LINES),
      "packages/db/src/unexplained.ts": linesOf(MAX_LINES + 1),
    });
    expect(checkFileSizes(root)).toEqual([
      "scripts/file-size-allow-list.txt:4: packages/db/src/unexplained.ts has no reason",
      `packages/db/src/short.ts: ${MAX_LINES} lines, within ${MAX_LINES}: remove it from scripts/file-size-allow-list.txt`,
    ]);
  });

  it("fails an allow-list entry for a file that is gone", () => {
    const root = scratchSources({ "scripts/file-size-allow-list.txt": "apps/web/src/gone.tsx  # split\n" });
    expect(checkFileSizes(root)).toEqual([
      "scripts/file-size-allow-list.txt: apps/web/src/gone.tsx is not a product file: remove it",
    ]);
  });

  it("passes this repository", () => {
    expect(checkFileSizes(repoRoot)).toEqual([]);
  });
});
