import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deleteFileTool } from "./delete-file-tool.js";
import { listFilesTool } from "./list-files-tool.js";
import { readFileTool } from "./read-file-tool.js";
import { shellTool } from "./shell-tool.js";
import { snapshotDirectory } from "./testing/directory-snapshot.js";
import { createRecordingToolContext, createTempWorkspace } from "./testing/recording-tool-context.js";
import { WorkspacePathError } from "./workspace-path.js";
import { writeFileTool } from "./write-file-tool.js";

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  ({ base, root, outside } = await createTempWorkspace());
  await mkdir(path.join(root, "sub"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "secret");
  await writeFile(path.join(root, "notes.txt"), "hello");
  await symlink(outside, path.join(root, "link-out"));
  await symlink(path.join(outside, "secret.txt"), path.join(root, "secret-link.txt"));
  await symlink(path.join(outside, "created-through-link.txt"), path.join(root, "dangling-link.txt"));
  await symlink("../../outside", path.join(root, "sub", "relative-link-out"));
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const ESCAPE_MESSAGE = /escapes the workspace|must be relative to the workspace|broken symbolic link/;

function outsidePath(...parts: string[]): string {
  return path.join(outside, ...parts);
}

type Attempt = { label: string; path: () => string };

const readAttempts: Attempt[] = [
  { label: "..", path: () => "../outside/secret.txt" },
  { label: "nested ..", path: () => "sub/../../outside/secret.txt" },
  { label: "absolute", path: () => outsidePath("secret.txt") },
  { label: "absolute inside the root", path: () => path.join(root, "notes.txt") },
  { label: "directory symlink out", path: () => "link-out/secret.txt" },
  { label: "relative directory symlink out", path: () => "sub/relative-link-out/secret.txt" },
  { label: "file symlink out", path: () => "secret-link.txt" },
];

const writeAttempts: Attempt[] = [
  { label: "..", path: () => "../outside/new.txt" },
  { label: "absolute", path: () => outsidePath("new.txt") },
  { label: "directory symlink out, new file", path: () => "link-out/new.txt" },
  { label: "directory symlink out, new subdirectory", path: () => "link-out/deeper/new.txt" },
  { label: "file symlink out, existing target", path: () => "secret-link.txt" },
  { label: "dangling symlink out", path: () => "dangling-link.txt" },
];

const directoryAttempts: Attempt[] = [
  { label: "..", path: () => ".." },
  { label: "absolute", path: () => outside },
  { label: "directory symlink out", path: () => "link-out" },
  { label: "relative directory symlink out", path: () => "sub/relative-link-out" },
];

async function expectRefusedAndUntouched(run: () => unknown, approvals: unknown[]) {
  const before = { outside: await snapshotDirectory(outside), root: await snapshotDirectory(root) };
  const failure = await Promise.resolve()
    .then(run)
    .then(
      () => new Error("the tool succeeded"),
      (error: unknown) => error,
    );
  expect(failure).toBeInstanceOf(WorkspacePathError);
  expect((failure as Error).message).toMatch(ESCAPE_MESSAGE);
  expect(approvals).toEqual([]);
  expect({ outside: await snapshotDirectory(outside), root: await snapshotDirectory(root) }).toEqual(before);
}

describe("read_file refuses paths that leave the workspace", () => {
  it.each(readAttempts)("$label", async (attempt) => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "read_file", root });
    await expectRefusedAndUntouched(() => readFileTool.execute({ path: attempt.path() }, context), approvals);
  });
});

describe("list_files refuses directories outside the workspace", () => {
  it.each(directoryAttempts)("$label", async (attempt) => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "list_files", root });
    await expectRefusedAndUntouched(
      () => listFilesTool.execute({ path: attempt.path() }, context),
      approvals,
    );
  });
});

describe("write_file refuses paths that leave the workspace, before asking for approval", () => {
  it.each(writeAttempts)("$label", async (attempt) => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "write_file", root });
    await expectRefusedAndUntouched(
      () => writeFileTool.execute({ path: attempt.path(), content: "pwned" }, context),
      approvals,
    );
  });
});

describe("delete_file refuses paths that leave the workspace, before asking for approval", () => {
  it.each(readAttempts)("$label", async (attempt) => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "delete_file", root });
    await expectRefusedAndUntouched(
      () => deleteFileTool.execute({ path: attempt.path() }, context),
      approvals,
    );
  });
});

describe("shell refuses a working directory outside the workspace, before asking for approval", () => {
  it.each(directoryAttempts)("$label", async (attempt) => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "shell", root });
    await expectRefusedAndUntouched(
      () => shellTool.execute({ command: "touch escaped.txt", cwd: attempt.path() }, context),
      approvals,
    );
  });
});

describe("a symbolic link that stays inside the workspace is followed", () => {
  it("reads through an inside link", async () => {
    await symlink("notes.txt", path.join(root, "inside-link.txt"));
    const { context } = createRecordingToolContext({ tool_name: "read_file", root });
    await expect(readFileTool.execute({ path: "inside-link.txt" }, context)).resolves.toEqual({
      path: "inside-link.txt",
      content: "hello",
      size: 5,
      truncated: false,
    });
  });

  it("deletes the link itself, not the file it points to", async () => {
    await symlink("notes.txt", path.join(root, "inside-link.txt"));
    const { context } = createRecordingToolContext({ tool_name: "delete_file", root });
    await expect(deleteFileTool.execute({ path: "inside-link.txt" }, context)).resolves.toEqual({
      success: true,
      deleted: "inside-link.txt",
    });
    const after = await snapshotDirectory(root);
    expect(after["inside-link.txt"]).toBeUndefined();
    expect(after["notes.txt"]).toBe("file: hello");
  });
});

describe("a workspace changed while the approval was pending is checked again", () => {
  async function swapForLinkOut(relative: string, target: string): Promise<void> {
    await rm(path.join(root, relative), { recursive: true, force: true });
    await symlink(target, path.join(root, relative));
  }

  it("write_file refuses a file replaced by a symlink out", async () => {
    const { context, approvals } = createRecordingToolContext({
      tool_name: "write_file",
      root,
      whilePending: () => swapForLinkOut("notes.txt", path.join(outside, "secret.txt")),
    });
    await expect(writeFileTool.execute({ path: "notes.txt", content: "pwned" }, context)).rejects.toThrow(
      "Path escapes the workspace through a symbolic link: notes.txt",
    );
    expect(approvals).toHaveLength(1);
    expect(await snapshotDirectory(outside)).toEqual({ "secret.txt": "file: secret" });
  });

  it("delete_file refuses a file replaced by a symlink out", async () => {
    const { context } = createRecordingToolContext({
      tool_name: "delete_file",
      root,
      whilePending: () => swapForLinkOut("notes.txt", path.join(outside, "secret.txt")),
    });
    await expect(deleteFileTool.execute({ path: "notes.txt" }, context)).rejects.toThrow(
      "Path escapes the workspace through a symbolic link: notes.txt",
    );
    expect(await snapshotDirectory(outside)).toEqual({ "secret.txt": "file: secret" });
  });

  it("shell refuses a cwd replaced by a symlink out", async () => {
    const { context } = createRecordingToolContext({
      tool_name: "shell",
      root,
      whilePending: () => swapForLinkOut("sub", outside),
    });
    await expect(shellTool.execute({ command: "touch escaped.txt", cwd: "sub" }, context)).rejects.toThrow(
      "Path escapes the workspace through a symbolic link: sub",
    );
    expect(await snapshotDirectory(outside)).toEqual({ "secret.txt": "file: secret" });
  });
});
