#!/usr/bin/env node
// `npm run lint`: every static guardrail, each run even when an earlier one failed so that one run
// reports everything; exits non-zero if any failed.
// - biome: formatting and the recommended lint rules;
// - dependency-cruiser (.dependency-cruiser.cjs): import boundaries between packages, no deep
//   imports into another package, no import cycles;
// - knip (knip.jsonc): unused files, exports and dependencies, and dependencies used but not declared;
// - jscpd (.jscpd.json): copied code in product code (tests excluded), over a fixed threshold.
import { spawnSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const checks = [
  ["format and lint rules (biome)", ["biome", "check", "."]],
  [
    "import boundaries and cycles (dependency-cruiser)",
    [
      "depcruise",
      "--config",
      ".dependency-cruiser.cjs",
      "--output-type",
      "err",
      "apps",
      "packages",
      "bench",
      "scripts",
    ],
  ],
  ["unused files, exports and dependencies (knip)", ["knip", "--no-progress"]],
  ["duplicate product code (jscpd)", ["jscpd", "--config", ".jscpd.json"]],
];

const failed = [];
for (const [name, args] of checks) {
  console.log(`\n▶ ${name}: npx ${args.join(" ")}`);
  const result = spawnSync("npx", args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) failed.push(name);
}
console.log(failed.length === 0 ? "\nlint: every check passed" : `\nlint: failed: ${failed.join("; ")}`);
process.exit(failed.length === 0 ? 0 : 1);
