import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { staleBuildSources } from "./built-api-check.js";

describe("staleBuildSources", () => {
  let base: string;
  const write = (relative: string, ageSeconds: number) => {
    const file = path.join(base, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "");
    const time = Date.now() / 1000 - ageSeconds;
    utimesSync(file, time, time);
  };

  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), "parley-built-check-"));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("is empty when every emitted source is older than its output", () => {
    write("pkg/src/a.ts", 60);
    write("pkg/dist/a.js", 30);
    write("pkg/src/deep/b.ts", 60);
    write("pkg/dist/deep/b.js", 30);
    expect(staleBuildSources(["pkg"], base)).toEqual([]);
  });

  it("names a source edited after the build, and one never built", () => {
    write("pkg/src/a.ts", 10);
    write("pkg/dist/a.js", 30);
    write("pkg/src/new.ts", 60);
    expect(staleBuildSources(["pkg"], base).sort()).toEqual(["pkg/src/a.ts", "pkg/src/new.ts"]);
  });

  it("ignores what no build emits: tests and the test-only folders", () => {
    write("pkg/dist/a.js", 30);
    write("pkg/src/a.ts", 60);
    write("pkg/src/a.test.ts", 1);
    write("pkg/src/testing/helper.ts", 1);
    write("pkg/src/faults/preload.ts", 1);
    write("pkg/src/test-support/x.ts", 1);
    expect(staleBuildSources(["pkg"], base)).toEqual([]);
  });
});
