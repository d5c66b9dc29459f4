import { describe, expect, it } from "vitest";
import {
  allowanceCovers,
  canonicalAllowances,
  commandMatchesPrefix,
  commandPrefixSchema,
} from "./tool-allowance.js";

describe("tool allowances: command prefixes as whole words, no control operators", () => {
  it("a command matches a prefix it starts with word for word", () => {
    expect(commandMatchesPrefix("npm test", "npm test")).toBe(true);
    expect(commandMatchesPrefix("npm   test -- --watch", "npm test")).toBe(true);
    expect(commandMatchesPrefix("npm testing", "npm test")).toBe(false);
    expect(commandMatchesPrefix("npm", "npm test")).toBe(false);
    expect(commandMatchesPrefix("npx test", "npm test")).toBe(false);
    expect(commandMatchesPrefix("rm -rf /", "rm -f")).toBe(false);
  });

  it("a command with a shell control operator never matches", () => {
    for (const command of [
      "npm test; rm -rf ~",
      "npm test && rm -rf ~",
      "npm test || rm -rf ~",
      "npm test | sh",
      "npm test `rm -rf ~`",
      "npm test $(rm -rf ~)",
      "npm test > ~/.bashrc",
      "npm test < /etc/passwd",
      "npm test\nrm -rf ~",
      "npm test & rm -rf ~",
    ]) {
      expect([command, commandMatchesPrefix(command, "npm test")]).toEqual([command, false]);
    }
  });

  it("a prefix is whole words with single spaces and holds no control operator", () => {
    expect(commandPrefixSchema.parse("  npm   test ")).toBe("npm test");
    expect(commandPrefixSchema.safeParse("   ").success).toBe(false);
    expect(commandPrefixSchema.safeParse("npm test;").success).toBe(false);
    expect(commandPrefixSchema.safeParse("$(id)").success).toBe(false);
  });

  it("an allowance covers its own tool only; a command call needs a matching prefix", () => {
    const allowances = [{ tool_name: "write_file" }, { tool_name: "shell", command_prefix: "npm test" }];
    expect(allowanceCovers(allowances, "write_file", undefined)).toBe(true);
    expect(allowanceCovers(allowances, "delete_file", undefined)).toBe(false);
    expect(allowanceCovers(allowances, "shell", "npm test -- a")).toBe(true);
    expect(allowanceCovers(allowances, "shell", "rm -rf /")).toBe(false);
    expect(allowanceCovers([{ tool_name: "shell" }], "shell", "npm test")).toBe(false);
  });

  it("lists are compared as sets", () => {
    expect(canonicalAllowances([{ tool_name: "b" }, { tool_name: "a" }, { tool_name: "b" }])).toEqual([
      { tool_name: "a" },
      { tool_name: "b" },
    ]);
  });
});
