#!/usr/bin/env node
// `npm run lint:file-size`: no product file is over MAX_LINES lines, so each file stays one concept
// a reader can hold. Product files are the TypeScript sources and the stylesheets (`.css`) under
// apps/*/src and packages/*/src, without tests (`*.test.ts`, which covers `*.int.test.ts` and
// `*.e2e.test.ts`) and test harnesses (`testing/`, `test-support/`, `faults/`). Files already over the limit when the check arrived are
// listed, each with its reason, in scripts/file-size-allow-list.txt; a listed file that is no longer
// over the limit fails the check too, so the list only shrinks.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const MAX_LINES = 400;
export const ALLOW_LIST_PATH = "scripts/file-size-allow-list.txt";

const PRODUCT_PARENTS = ["apps", "packages"];
const HARNESS_FOLDERS = new Set(["testing", "test-support", "faults", "node_modules"]);

/** @param {string} name */
function isProductSource(name) {
  return /\.(tsx?|css)$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith(".d.ts");
}

/** @param {string} folder @returns {string[]} */
function sourcesUnder(folder) {
  /** @type {string[]} */
  const found = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!HARNESS_FOLDERS.has(entry.name)) found.push(...sourcesUnder(path));
    } else if (entry.isFile() && isProductSource(entry.name)) {
      found.push(path);
    }
  }
  return found;
}

/** @param {string} root @returns {string[]} paths relative to root, with `/` separators */
export function productFiles(root) {
  /** @type {string[]} */
  const files = [];
  for (const parent of PRODUCT_PARENTS) {
    let packages;
    try {
      packages = readdirSync(join(root, parent), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const pkg of packages) {
      if (!pkg.isDirectory()) continue;
      const src = join(root, parent, pkg.name, "src");
      let sources;
      try {
        sources = sourcesUnder(src);
      } catch {
        continue;
      }
      files.push(...sources.map((path) => relative(root, path).split(sep).join("/")));
    }
  }
  return files.sort();
}

/** @param {string} text */
export function lineCount(text) {
  if (text === "") return 0;
  const lines = text.split("\n").length;
  return text.endsWith("\n") ? lines - 1 : lines;
}

/**
 * The allow-list: one `path  # reason` a line; blank lines and lines starting with `#` are
 * comments. A line without a reason is a problem of its own.
 * @param {string} text
 * @returns {{ entries: Map<string, string>, problems: string[] }}
 */
export function parseAllowList(text) {
  const entries = new Map();
  const problems = [];
  for (const [index, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const hash = line.indexOf("#");
    const path = (hash === -1 ? line : line.slice(0, hash)).trim();
    const reason = hash === -1 ? "" : line.slice(hash + 1).trim();
    if (reason === "") problems.push(`${ALLOW_LIST_PATH}:${index + 1}: ${path} has no reason`);
    entries.set(path, reason);
  }
  return { entries, problems };
}

/**
 * Every violation under root, as one message each (empty: the check passes).
 * @param {string} root
 * @returns {string[]}
 */
export function checkFileSizes(root) {
  let allowText = "";
  try {
    allowText = readFileSync(join(root, ALLOW_LIST_PATH), "utf8");
  } catch {
    // No allow-list: every product file must be within the limit.
  }
  const { entries: allowed, problems } = parseAllowList(allowText);
  const files = new Set(productFiles(root));
  for (const path of files) {
    const lines = lineCount(readFileSync(join(root, path), "utf8"));
    if (lines > MAX_LINES && !allowed.has(path)) {
      problems.push(`${path}: ${lines} lines (over ${MAX_LINES}): split it into files of one concept each`);
    }
    if (lines <= MAX_LINES && allowed.has(path)) {
      problems.push(`${path}: ${lines} lines, within ${MAX_LINES}: remove it from ${ALLOW_LIST_PATH}`);
    }
  }
  for (const path of allowed.keys()) {
    if (!files.has(path)) problems.push(`${ALLOW_LIST_PATH}: ${path} is not a product file: remove it`);
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = checkFileSizes(fileURLToPath(new URL("..", import.meta.url)));
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log(`file-size: every product file is within ${MAX_LINES} lines or allow-listed`);
}
