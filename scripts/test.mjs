#!/usr/bin/env node
// `npm test`: every suite, in the order a failure is cheapest to find. Each step runs even when an
// earlier one failed, so one run reports everything; the exit code is non-zero if any step failed.
// The last line is the plain "N passed, N failed" summary CI reads.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI colour codes of a log or a message
const ANSI_COLOURS = /\u001b\[[0-9;]*m/g;
const reportDir = join(root, ".parley", "test-reports");
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", FORCE_COLOR: process.env.CI ? "0" : "1" };

/** @type {{ name: string, ok: boolean }[]} */
const steps = [];
function run(name, command, args, extraEnv = {}) {
  console.log(`\n▶ ${name}: ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: { ...env, ...extraEnv } });
  const ok = result.status === 0;
  steps.push({ name, ok });
  return ok;
}

const built = run("build", "npx", ["turbo", "run", "build"]);
// Every workspace, the bench (`@parley/bench`) included, so the benchmarks cannot drift from the
// API they drive. Before the end-to-end tests start, not beside them: turbo's `typecheck` runs
// `^build` again, and `@parley/db` always rebuilds (`cache: false`, turbo.json) and regenerates the
// Prisma client, rewriting `packages/db/dist` and `node_modules/.prisma` under the API processes
// those tests start. (Stop 34's CI run: an API process started while tsc rewrote the file failed
// with "'./auth/prisma-auth-store.js' does not provide an export named 'PrismaAuthStore'".)
run("typecheck", "npx", ["turbo", "run", "typecheck"]);
// The end-to-end tests are the longest run (one file at a time): they start now, beside the checks
// below and the other test runs (see "side by side" further down). Nothing after this point writes
// a build output.
const e2eReport = join(reportDir, "vitest-e2e.json");
const endToEnd = runBeside(
  "API/SDK end-to-end tests",
  "npx",
  [
    "vitest",
    "run",
    "--project",
    "e2e",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${e2eReport}`,
  ],
  join(reportDir, "vitest-e2e.log"),
);
run("lint", "npm", ["run", "lint"]);
run("migrations match schema", "npm", ["run", "db:check-drift", "-w", "@parley/db"]);

/**
 * Starts `command` and returns at once, its output written straight to `logFile` (a step that runs
 * beside another must not interleave its lines with it; and a file descriptor, not a pipe, because
 * the step beside it blocks this process's event loop); resolves with the step's result.
 */
function runBeside(name, command, args, logFile, extraEnv = {}) {
  console.log(`\n▶ ${name} (beside the next step; its output follows it): ${command} ${args.join(" ")}`);
  const log = openSync(logFile, "w");
  const child = spawn(command, args, {
    cwd: root,
    stdio: ["ignore", log, log],
    env: { ...env, ...extraEnv },
  });
  return new Promise((resolve) => {
    child.on("close", (code) => {
      closeSync(log);
      resolve({ name, ok: code === 0, logFile });
    });
  });
}

// The browser tests, the API/SDK end-to-end tests and the unit and integration tests share no
// database, port or process (each creates its own), and none keeps both cores busy (most of their
// time is spent waiting on processes, Postgres and the browser), so they run side by side: that is
// what keeps `npm test` under 10 minutes on a 2-core machine. The end-to-end project runs its files
// one at a time (they start API processes on fixed ports); in the same vitest run as the others it
// would wait for all of them (vitest runs such a project as a group of its own, last), so it is a
// vitest run of its own, started right after the typecheck (above). The outputs of the steps beside
// are printed after the last one's.
const vitestReport = join(reportDir, "vitest.json");
const playwrightReport = join(reportDir, "playwright.json");
const beside = built
  ? [
      runBeside(
        "browser tests",
        "npx",
        ["playwright", "test", "-c", "apps/web/playwright.config.ts", "--reporter=list,json"],
        join(reportDir, "playwright.log"),
        { PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport },
      ),
    ]
  : [];
run("unit and integration tests", "npx", [
  "vitest",
  "run",
  "--project",
  "unit",
  "--project",
  "int",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${vitestReport}`,
]);
beside.push(endToEnd);
for (const result of await Promise.all(beside)) {
  console.log(`\n▶ ${result.name} (output):\n${readFileSync(result.logFile, "utf8")}`);
  steps.push({ name: result.name, ok: result.ok });
}
if (!built) steps.push({ name: "browser tests (not run: build failed)", ok: false });

let passed = 0;
let failed = 0;
let skipped = 0;
// CI shows only the end of the output, so the failures are named again here, under the summary.
/** @type {string[]} */
const failures = [];
const vitestReports = [
  { file: vitestReport, log: null },
  { file: e2eReport, log: join(reportDir, "vitest-e2e.log") },
];
for (const { file: vitestReportFile, log } of vitestReports) {
  if (!existsSync(vitestReportFile)) continue;
  const report = JSON.parse(readFileSync(vitestReportFile, "utf8"));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const file of report.testResults ?? []) {
    const where = file.name.replace(root, "");
    const assertions = file.assertionResults ?? [];
    // A file that failed to load has no test results of its own; count it once.
    if (file.status === "failed" && assertions.length === 0) {
      failed += 1;
      failures.push(`${where}: ${firstLine(file.message)}`);
    }
    for (const test of assertions) {
      if (test.status !== "failed") continue;
      failures.push(`${where} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    }
    // A hook that failed (a `beforeAll` whose server did not start, say) skips its tests and fails
    // the file with no failed test and, in the JSON report, no message: count it once and name it,
    // with its error as the step's log printed it.
    if (
      file.status === "failed" &&
      assertions.length > 0 &&
      !assertions.some((test) => test.status === "failed")
    ) {
      failed += 1;
      const printed =
        log !== null && existsSync(log) ? suiteErrorInLog(readFileSync(log, "utf8"), where) : "";
      failures.push(
        `${where}: failed outside its tests (a hook or an unhandled error)${printed ? `: ${printed}` : ""}`,
      );
    }
  }
}

/**
 * The error vitest's default reporter printed under "Failed Suites" for `where`: its first line and
 * its last three (where a server's output ends with the reason it stopped), or "" if not found.
 * @param {string} logText @param {string} where
 */
function suiteErrorInLog(logText, where) {
  const lines = logText.replace(ANSI_COLOURS, "").split("\n");
  // " FAIL   e2e  apps/api/src/x.e2e.test.ts > describe" (the project's name when there are several).
  const path = where.replace(/^\//, "");
  const start = lines.findIndex((line) => /^\s*FAIL\s/.test(line) && line.includes(` ${path} >`));
  if (start < 0) return "";
  const error = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*(❯ |at |⎯)/.test(line) || /^\s*\d+\|/.test(line)) break;
    if (line.trim() !== "") error.push(line.trim().slice(0, 300));
  }
  const shown = error.length > 4 ? [error[0], "…", ...error.slice(-3)] : error;
  return shown.join(" ⏎ ");
}
if (existsSync(playwrightReport)) {
  const playwright = JSON.parse(readFileSync(playwrightReport, "utf8"));
  const stats = playwright.stats ?? {};
  passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
  failed += stats.unexpected ?? 0;
  skipped += stats.skipped ?? 0;
  collectPlaywrightFailures(playwright.suites ?? [], []);
}

/** @param {unknown} text */
function firstLine(text) {
  const plain = String(text ?? "").replace(ANSI_COLOURS, "");
  return (
    plain
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim()
      .slice(0, 300) ?? ""
  );
}

/**
 * An assertion's first line and, when it has them, its "Expected:" and "Received:" lines: without
 * them "toHaveTitle(expected) failed" does not say whether the value was late or wrong.
 * @param {unknown} text
 */
function firstLineWithValues(text) {
  const lines = String(text ?? "")
    .replace(ANSI_COLOURS, "")
    .split("\n");
  const values = lines
    .map((line) => line.trim())
    .filter((line) => /^(Expected|Received)( string)?:/.test(line));
  return [firstLine(text), ...values.map((line) => line.slice(0, 200))].join(" ⏎ ");
}

/** @param {any[]} suites @param {string[]} titles */
function collectPlaywrightFailures(suites, titles) {
  for (const suite of suites) {
    const path = suite.title ? [...titles, suite.title] : titles;
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== "unexpected") continue;
        const error = test.results?.at(-1)?.error?.message;
        failures.push(`${[...path, spec.title].join(" › ")}: ${firstLineWithValues(error)}`);
      }
    }
    collectPlaywrightFailures(suite.suites ?? [], path);
  }
}

console.log("\nSteps:");
for (const step of steps) console.log(`  ${step.ok ? "ok  " : "FAIL"} ${step.name}`);
if (failures.length > 0) {
  console.log("\nFailed tests:");
  for (const failure of failures) console.log(`  ✗ ${failure}`);
}
const stepFailures = steps.filter((step) => !step.ok).length;
if (stepFailures > 0 && failed === 0) failed = stepFailures;
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(stepFailures > 0 ? 1 : 0);
