import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { envSchema } from "./env.js";

/** Every backticked variable name in the first column of the README's configuration table. */
function documentedVariables(): Set<string> {
  const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
  const section = readme.split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? "";
  const rows = section.split("\n").filter((line) => line.startsWith("| `"));
  const names = rows.flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]*)`/g)]);
  return new Set(names.map((match) => match[1] ?? ""));
}

describe("README configuration table", () => {
  it("documents every variable apps/api/src/env.ts reads", () => {
    const read = Object.keys(envSchema.shape);
    const documented = documentedVariables();
    expect(read.filter((name) => !documented.has(name))).toEqual([]);
    expect(documented.size).toBeGreaterThanOrEqual(read.length);
  });
});
