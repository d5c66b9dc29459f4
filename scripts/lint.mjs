#!/usr/bin/env node
// `npm run lint`: every static guardrail (the `lint:*` scripts of package.json), each run even when
// an earlier one failed so that one run reports everything; exits non-zero if any failed.
// - lint:format — biome: formatting and the recommended lint rules;
// - lint:imports — dependency-cruiser (.dependency-cruiser.cjs): import boundaries between
//   packages, no deep imports into another package, no import cycles;
// - lint:unused — knip (knip.jsonc): unused files, exports and dependencies, and dependencies used
//   but not declared;
// - lint:duplicates — jscpd (.jscpd.json): copied code in product code and the bench (tests
//   excluded), over a fixed threshold;
// - lint:file-size — scripts/check-file-size.mjs: no product file over 400 lines, save those in
//   its allow-list (scripts/file-size-allow-list.txt), which may only shrink.
import { spawnSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const checks = ["lint:format", "lint:imports", "lint:unused", "lint:duplicates", "lint:file-size"];

const failed = [];
for (const check of checks) {
  console.log(`\n▶ npm run ${check}`);
  const result = spawnSync("npm", ["run", "--silent", check], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) failed.push(check);
}
console.log(failed.length === 0 ? "\nlint: every check passed" : `\nlint: failed: ${failed.join(", ")}`);
process.exit(failed.length === 0 ? 0 : 1);
