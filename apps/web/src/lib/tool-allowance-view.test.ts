import { describe, expect, it } from "vitest";
import { allowanceLabel, allowanceRows, withoutAllowance } from "./tool-allowance-view";

const gitStatus = { tool_name: "shell", command_prefix: "git status" };
const npmTest = { tool_name: "shell", command_prefix: "npm test" };
const writeFile = { tool_name: "write_file" };

describe("the session header's allowance list", () => {
  it("lists configured allowances as active or adding, then revoked ones still in effect", () => {
    const rows = allowanceRows({
      approval_mode: "ask",
      effective_approval_mode: "ask",
      tool_allowances: [gitStatus, writeFile],
      effective_tool_allowances: [gitStatus, npmTest],
    });
    expect(rows.map((row) => [row.allowance, row.state])).toEqual([
      [gitStatus, "active"],
      [writeFile, "adding"],
      [npmTest, "revoking"],
    ]);
    expect(new Set(rows.map((row) => row.key)).size).toBe(3);
  });

  it("is empty when nothing is allowed or pending", () => {
    expect(
      allowanceRows({
        approval_mode: "ask",
        effective_approval_mode: "ask",
        tool_allowances: [],
        effective_tool_allowances: [],
      }),
    ).toEqual([]);
  });

  it("revoking one keeps the others, telling a prefix-less allowance from one with a prefix", () => {
    const shellWithout = { tool_name: "shell" };
    expect(withoutAllowance([gitStatus, npmTest, writeFile], npmTest)).toEqual([gitStatus, writeFile]);
    expect(withoutAllowance([gitStatus, shellWithout], shellWithout)).toEqual([gitStatus]);
    expect(withoutAllowance([gitStatus], writeFile)).toEqual([gitStatus]);
  });

  it("reads as tool and prefix", () => {
    expect(allowanceLabel(gitStatus)).toBe("shell: git status");
    expect(allowanceLabel(writeFile)).toBe("write_file");
  });
});
