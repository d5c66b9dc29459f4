import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { ParleyError } from "@parley/session-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  assertKnownWorkspace,
  createWorkspaceResolver,
  listWorkspaces,
  mayUseWorkspace,
  parseWorkspaceConfig,
  resolveSessionWorkspace,
  WorkspaceConfigError,
} from "./session-workspaces.js";
import { createTempWorkspace } from "./testing/recording-tool-context.js";

let base: string;

beforeEach(async () => {
  ({ base } = await createTempWorkspace());
  await mkdir(path.join(base, "repo"));
  await mkdir(path.join(base, "docs"));
  await writeFile(path.join(base, "file.txt"), "x");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("workspaces limited to listed users", () => {
  const alice = { name: "alice", role: "member" } as const;
  const bob = { name: "bob", role: "member" } as const;
  const carol = { name: "carol", role: "member" } as const;
  const admin = { name: "root", role: "admin" } as const;

  it("parses id[user+user]=path, keeping everything after the first = as the path", async () => {
    await mkdir(path.join(base, "a=b"));
    const config = parseWorkspaceConfig(
      { PARLEY_WORKSPACES: "project[alice+bob]=repo, docs=docs, odd[carol]=a=b" },
      base,
    );
    expect([...config.named]).toEqual([
      ["project", path.join(base, "repo")],
      ["docs", path.join(base, "docs")],
      ["odd", path.join(base, "a=b")],
    ]);
    expect(listWorkspaces(config, alice)).toEqual([{ workspace_id: "project" }, { workspace_id: "docs" }]);
    expect(listWorkspaces(config, carol)).toEqual([{ workspace_id: "docs" }, { workspace_id: "odd" }]);
    expect(listWorkspaces(config, admin)).toEqual(listWorkspaces(config));
    expect(mayUseWorkspace(config, "project", bob)).toBe(true);
    expect(mayUseWorkspace(config, "project", carol)).toBe(false);
    expect(mayUseWorkspace(config, "missing", admin)).toBe(false);
  });

  it("refuses a workspace the member may not use exactly like an unknown one", () => {
    const config = parseWorkspaceConfig({ PARLEY_WORKSPACES: "project[alice]=repo,docs=docs" }, base);
    expect(() => assertKnownWorkspace(config, "project", alice)).not.toThrow();
    expect(() => assertKnownWorkspace(config, "project", admin)).not.toThrow();
    for (const id of ["project", "nope"]) {
      expect(() => assertKnownWorkspace(config, id, carol)).toThrow(
        new ParleyError("invalid_input", `Unknown workspace_id: ${id} (configured: docs)`),
      );
    }
  });
});

describe("parseWorkspaceConfig", () => {
  it("reads id=path pairs (relative to the base dir) and the session root", () => {
    const config = parseWorkspaceConfig(
      {
        PARLEY_WORKSPACES: ` project=repo , docs=${path.join(base, "docs")},`,
        PARLEY_WORKSPACE_ROOT: "ws",
      },
      base,
    );
    expect([...config.named]).toEqual([
      ["project", path.join(base, "repo")],
      ["docs", path.join(base, "docs")],
    ]);
    expect(config.session_root).toBe(path.join(base, "ws"));
    expect(listWorkspaces(config)).toEqual([{ workspace_id: "project" }, { workspace_id: "docs" }]);
  });

  it("defaults to no named workspaces and .parley/workspaces", () => {
    const config = parseWorkspaceConfig({}, base);
    expect(config.named.size).toBe(0);
    expect(config.session_root).toBe(path.join(base, ".parley/workspaces"));
    expect(listWorkspaces(config)).toEqual([]);
  });

  it.each([
    ["project", "expected id=path pairs"],
    ["=repo", "expected id=path pairs"],
    ["project=", "expected id=path pairs"],
    ["bad id=repo", "expected id=path pairs"],
    ["project=repo,project=docs", 'workspace id "project" is listed twice'],
    ["project=missing", `workspace "project" path is not a directory`],
    ["project=file.txt", `workspace "project" path is not a directory`],
    ["project[]=repo", 'workspace "project" lists an invalid user name ""'],
    ["project[alice+]=repo", 'workspace "project" lists an invalid user name ""'],
    ["project[al ice]=repo", 'workspace "project" lists an invalid user name "al ice"'],
    ["project[alice]x=repo", "expected id=path pairs"],
    ["project[alice=repo", "expected id=path pairs"],
  ])("refuses %s", (setting, message) => {
    expect(() => parseWorkspaceConfig({ PARLEY_WORKSPACES: setting }, base)).toThrow(WorkspaceConfigError);
    expect(() => parseWorkspaceConfig({ PARLEY_WORKSPACES: setting }, base)).toThrow(message);
  });
});

describe("resolveSessionWorkspace", () => {
  it("gives a named workspace its configured path, and other sessions their own directory", () => {
    const config = parseWorkspaceConfig(
      { PARLEY_WORKSPACES: "project=repo", PARLEY_WORKSPACE_ROOT: "ws" },
      base,
    );
    expect(resolveSessionWorkspace(config, { session_id: "session:a", workspace_id: "project" })).toEqual({
      workspace_id: "project",
      root: path.join(base, "repo"),
    });
    const resolve = createWorkspaceResolver(config);
    expect(resolve({ session_id: "session:a", workspace_id: null })).toEqual({
      workspace_id: null,
      root: path.join(base, "ws", "session:a"),
    });
  });

  it("rejects an unknown workspace_id with invalid_input", () => {
    const config = parseWorkspaceConfig({ PARLEY_WORKSPACES: "project=repo" }, base);
    const attempt = () => resolveSessionWorkspace(config, { session_id: "session:a", workspace_id: "other" });
    expect(attempt).toThrow(ParleyError);
    expect(attempt).toThrow("Unknown workspace_id: other (configured: project)");
    expect(() => assertKnownWorkspace(config, "other")).toThrow(
      expect.objectContaining({ name: "ParleyError", code: "invalid_input" }),
    );
    expect(() => assertKnownWorkspace(config, "project")).not.toThrow();
  });

  it.each(["..", ".", "a/b", ""])("refuses a session id that is not one path segment: %j", (session_id) => {
    const config = parseWorkspaceConfig({}, base);
    expect(() => resolveSessionWorkspace(config, { session_id, workspace_id: null })).toThrow(
      "Session id cannot name a workspace directory",
    );
  });
});
