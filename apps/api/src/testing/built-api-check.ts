import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./api-process.js";

/** The API and the workspace packages its build runs on (`apps/api/dist` imports their `dist`). */
const BUILT_PACKAGES = ["apps/api", "packages/session-core", "packages/db", "packages/tools"];

/** Sources no build emits: tests, and the test-only folders each `tsconfig.build.json` leaves out. */
const NOT_BUILT = /\.test\.ts$|\.d\.ts$|\/(?:testing|faults|test-support)\//;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * The sources (`<root>/src`) whose build output (`<root>/dist`) is missing or older than they
 * are, across `packageRoots`, relative to `base`; empty when every build is what its sources say.
 */
export function staleBuildSources(packageRoots: readonly string[], base: string): string[] {
  const stale: string[] = [];
  for (const root of packageRoots.map((relative) => path.join(base, relative))) {
    const sources = path.join(root, "src");
    for (const source of sourceFiles(sources)) {
      if (NOT_BUILT.test(source)) continue;
      const output = path.join(root, "dist", path.relative(sources, source)).replace(/\.ts$/, ".js");
      if (!existsSync(output) || statSync(output).mtimeMs < statSync(source).mtimeMs)
        stale.push(path.relative(base, source));
    }
  }
  return stale;
}

/**
 * Global setup of the end-to-end project: its API processes run the build (`apps/api/dist`), as
 * production does, so a test never runs yesterday's build of today's sources. `npm test` builds
 * first; alone, run `npm run build` before `vitest run --project e2e`.
 */
export default function assertApiBuilt(): void {
  const stale = staleBuildSources(BUILT_PACKAGES, REPO_ROOT);
  if (stale.length === 0) return;
  const listed = stale.slice(0, 5).join(", ") + (stale.length > 5 ? `, and ${stale.length - 5} more` : "");
  throw new Error(`The API build is older than its sources (${listed}): run \`npm run build\` first.`);
}
