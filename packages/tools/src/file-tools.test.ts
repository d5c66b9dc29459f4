import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { APPROVAL_PREVIOUS_CONTENT_MAX_BYTES } from "@parley/session-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DELETE_FILE_DESCRIPTION, deleteFileTool } from "./delete-file-tool.js";
import { listFilesTool } from "./list-files-tool.js";
import { READ_FILE_MAX_BYTES, readFileTool } from "./read-file-tool.js";
import { snapshotDirectory } from "./testing/directory-snapshot.js";
import { createRecordingToolContext, createTempWorkspace } from "./testing/recording-tool-context.js";
import { createWorkspaceTools } from "./workspace-tools.js";
import { WRITE_FILE_DESCRIPTION, writeFileTool } from "./write-file-tool.js";

let base: string;
let root: string;

beforeEach(async () => {
  ({ base, root } = await createTempWorkspace());
  await mkdir(path.join(root, "docs"), { recursive: true });
  await writeFile(path.join(root, "notes.txt"), "hello");
  await writeFile(path.join(root, "docs", "guide.md"), "# Guide");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("input schemas", () => {
  it("are strict: unknown keys are rejected", () => {
    const tools = createWorkspaceTools();
    expect(Object.keys(tools)).toEqual(["read_file", "list_files", "write_file", "delete_file", "shell"]);
    expect(tools.read_file.input_schema.safeParse({ path: "a", extra: 1 }).success).toBe(false);
    expect(tools.list_files.input_schema.safeParse({ extra: 1 }).success).toBe(false);
    expect(tools.list_files.input_schema.safeParse({}).success).toBe(true);
    expect(tools.write_file.input_schema.safeParse({ path: "a", content: "b", mode: 1 }).success).toBe(false);
    expect(tools.write_file.input_schema.safeParse({ path: "a" }).success).toBe(false);
    expect(tools.delete_file.input_schema.safeParse({ path: "" }).success).toBe(false);
    expect(tools.shell.input_schema.safeParse({ command: "ls", sudo: true }).success).toBe(false);
    expect(tools.shell.input_schema.safeParse({ command: "ls", timeout_ms: 120_001 }).success).toBe(false);
  });
});

describe("without a workspace", () => {
  const inputs = {
    read_file: { path: "notes.txt" },
    list_files: {},
    write_file: { path: "notes.txt", content: "x" },
    delete_file: { path: "notes.txt" },
    shell: { command: "true" },
  } as const;
  it.each(Object.keys(inputs) as Array<keyof typeof inputs>)("%s fails clearly", async (name) => {
    const tool = createWorkspaceTools()[name];
    const { context, approvals } = createRecordingToolContext({ tool_name: name, root: undefined });
    await expect(tool.execute(tool.input_schema.parse(inputs[name]), context)).rejects.toThrow(
      `${name} needs a workspace, but this session has none`,
    );
    expect(approvals).toEqual([]);
  });
});

describe("read_file", () => {
  it("returns the content relative to the workspace", async () => {
    const { context } = createRecordingToolContext({ tool_name: "read_file", root });
    await expect(readFileTool.execute({ path: "docs/../docs/guide.md" }, context)).resolves.toEqual({
      path: "docs/guide.md",
      content: "# Guide",
      size: 7,
      truncated: false,
    });
  });

  it("caps the size and flags truncation", async () => {
    await writeFile(path.join(root, "big.txt"), "a".repeat(READ_FILE_MAX_BYTES + 10));
    const { context } = createRecordingToolContext({ tool_name: "read_file", root });
    const result = await readFileTool.execute({ path: "big.txt" }, context);
    expect(result.content.length).toBe(READ_FILE_MAX_BYTES);
    expect(result.size).toBe(READ_FILE_MAX_BYTES + 10);
    expect(result.truncated).toBe(true);
  });

  it("fails clearly on a missing file and on a directory", async () => {
    const { context } = createRecordingToolContext({ tool_name: "read_file", root });
    await expect(readFileTool.execute({ path: "missing.txt" }, context)).rejects.toThrow(
      "File not found: missing.txt",
    );
    await expect(readFileTool.execute({ path: "docs" }, context)).rejects.toThrow("Not a file: docs");
  });
});

describe("list_files", () => {
  it("lists the root by default, sorted, with entry types", async () => {
    const { context } = createRecordingToolContext({ tool_name: "list_files", root });
    await expect(listFilesTool.execute({}, context)).resolves.toEqual({
      path: ".",
      entries: [
        { name: "docs", type: "directory" },
        { name: "notes.txt", type: "file" },
      ],
      truncated: false,
    });
    await expect(listFilesTool.execute({ path: "docs" }, context)).resolves.toEqual({
      path: "docs",
      entries: [{ name: "guide.md", type: "file" }],
      truncated: false,
    });
  });

  it("creates a per-session root on first use", async () => {
    const fresh = path.join(base, "sessions", "session:new");
    const { context } = createRecordingToolContext({ tool_name: "list_files", root: fresh });
    await expect(listFilesTool.execute({}, context)).resolves.toEqual({
      path: ".",
      entries: [],
      truncated: false,
    });
  });

  it("fails clearly on a file and on a missing directory", async () => {
    const { context } = createRecordingToolContext({ tool_name: "list_files", root });
    await expect(listFilesTool.execute({ path: "notes.txt" }, context)).rejects.toThrow(
      "Not a directory: notes.txt",
    );
    await expect(listFilesTool.execute({ path: "nope" }, context)).rejects.toThrow(
      "Directory not found: nope",
    );
  });
});

describe("write_file", () => {
  it("asks approval with the exact payload before writing, then writes", async () => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "write_file", root });
    const result = await writeFileTool.execute({ path: "plans/todo.md", content: "buy milk" }, context);
    expect(approvals).toEqual([
      {
        turn_id: "turn:test",
        tool_call_id: "call_test",
        tool_name: "write_file",
        payload: {
          operation: "tool",
          validated_input: { path: "plans/todo.md", content: "buy milk" },
          tool_description: WRITE_FILE_DESCRIPTION,
          target: { path: "plans/todo.md", exists: false },
        },
      },
    ]);
    expect(result).toEqual({ success: true, path: "plans/todo.md", bytes_written: 8, created: true });
    expect(await readFile(path.join(root, "plans", "todo.md"), "utf8")).toBe("buy milk");
  });

  it("overwrites an existing file and reports it as not created", async () => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "write_file", root });
    await expect(writeFileTool.execute({ path: "notes.txt", content: "bye" }, context)).resolves.toEqual({
      success: true,
      path: "notes.txt",
      bytes_written: 3,
      created: false,
    });
    // The approval showed what would be overwritten: size and content, for the card's diff.
    expect(approvals[0]?.payload).toMatchObject({
      target: { path: "notes.txt", exists: true, size_bytes: 5, previous_content: "hello" },
    });
    expect(await readFile(path.join(root, "notes.txt"), "utf8")).toBe("bye");
  });

  it("writes nothing when the approval is not given", async () => {
    const before = await snapshotDirectory(root);
    const { context, approvals } = createRecordingToolContext({
      tool_name: "write_file",
      root,
      approve: false,
    });
    await expect(writeFileTool.execute({ path: "todo.md", content: "buy milk" }, context)).resolves.toEqual({
      success: false,
      error: "denied",
    });
    expect(approvals).toHaveLength(1);
    expect(await snapshotDirectory(root)).toEqual(before);
  });

  it("writes the approver's edited path and content instead of the model's", async () => {
    const { context } = createRecordingToolContext({
      tool_name: "write_file",
      root,
      edited_input: { path: "docs/edited.md", content: "edited text" },
    });
    await expect(
      writeFileTool.execute({ path: "todo.md", content: "buy milk", explanation: "a list" }, context),
    ).resolves.toEqual({ success: true, path: "docs/edited.md", bytes_written: 11, created: true });
    expect(await readFile(path.join(root, "docs", "edited.md"), "utf8")).toBe("edited text");
    await expect(readFile(path.join(root, "todo.md"), "utf8")).rejects.toThrow("ENOENT");
  });

  it("confines an edited path like the model's", async () => {
    const before = await snapshotDirectory(root);
    const { context } = createRecordingToolContext({
      tool_name: "write_file",
      root,
      edited_input: { path: "../outside/escape.txt", content: "x" },
    });
    await expect(writeFileTool.execute({ path: "todo.md", content: "x" }, context)).rejects.toThrow(
      "Path escapes the workspace",
    );
    expect(await snapshotDirectory(root)).toEqual(before);
  });

  it("refuses a directory target without asking", async () => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "write_file", root });
    await expect(writeFileTool.execute({ path: "docs", content: "x" }, context)).rejects.toThrow(
      "Not a regular file: docs",
    );
    expect(approvals).toEqual([]);
  });
});

describe("approval target of a file that is too large or not text", () => {
  it("carries the size only", async () => {
    await writeFile(path.join(root, "big.txt"), "x".repeat(APPROVAL_PREVIOUS_CONTENT_MAX_BYTES + 1));
    await writeFile(path.join(root, "blob.bin"), Buffer.from([0xff, 0xfe, 0x00, 0x80]));
    const { context, approvals } = createRecordingToolContext({ tool_name: "write_file", root });
    await writeFileTool.execute({ path: "big.txt", content: "small" }, context);
    await writeFileTool.execute({ path: "blob.bin", content: "text" }, context);
    expect(approvals.map((approval) => (approval.payload as { target?: unknown }).target)).toEqual([
      { path: "big.txt", exists: true, size_bytes: APPROVAL_PREVIOUS_CONTENT_MAX_BYTES + 1 },
      { path: "blob.bin", exists: true, size_bytes: 4 },
    ]);
  });
});

describe("delete_file", () => {
  it("asks approval with the exact payload before deleting, then deletes", async () => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "delete_file", root });
    await expect(deleteFileTool.execute({ path: "notes.txt" }, context)).resolves.toEqual({
      success: true,
      deleted: "notes.txt",
    });
    expect(approvals).toEqual([
      {
        turn_id: "turn:test",
        tool_call_id: "call_test",
        tool_name: "delete_file",
        payload: {
          operation: "tool",
          validated_input: { path: "notes.txt" },
          tool_description: DELETE_FILE_DESCRIPTION,
          target: { path: "notes.txt", exists: true, size_bytes: 5 },
        },
      },
    ]);
    expect((await snapshotDirectory(root))["notes.txt"]).toBeUndefined();
  });

  it("deletes the approver's edited path instead of the model's", async () => {
    const { context } = createRecordingToolContext({
      tool_name: "delete_file",
      root,
      edited_input: { path: "docs/guide.md" },
    });
    await expect(deleteFileTool.execute({ path: "notes.txt" }, context)).resolves.toEqual({
      success: true,
      deleted: "docs/guide.md",
    });
    expect(await readFile(path.join(root, "notes.txt"), "utf8")).toBe("hello");
    await expect(readFile(path.join(root, "docs", "guide.md"), "utf8")).rejects.toThrow("ENOENT");
  });

  it("deletes nothing when the approval is not given", async () => {
    const before = await snapshotDirectory(root);
    const { context, approvals } = createRecordingToolContext({
      tool_name: "delete_file",
      root,
      approve: false,
    });
    await expect(deleteFileTool.execute({ path: "notes.txt" }, context)).resolves.toEqual({
      success: false,
      error: "denied",
    });
    expect(approvals).toHaveLength(1);
    expect(await snapshotDirectory(root)).toEqual(before);
  });

  it("refuses a directory without asking", async () => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "delete_file", root });
    await expect(deleteFileTool.execute({ path: "docs" }, context)).rejects.toThrow("Not a file: docs");
    await expect(deleteFileTool.execute({ path: "." }, context)).rejects.toThrow("Not a file: .");
    expect(approvals).toEqual([]);
  });

  it("asks for a missing file, then fails clearly when it is still missing", async () => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "delete_file", root });
    await expect(deleteFileTool.execute({ path: "missing.txt" }, context)).rejects.toThrow(
      "File not found: missing.txt",
    );
    expect(approvals).toHaveLength(1);
  });
});

describe("an approval that arrives after the tool call was aborted", () => {
  it.each(["write_file", "delete_file"] as const)("%s does nothing", async (name) => {
    const before = await snapshotDirectory(root);
    const recording = createRecordingToolContext({
      tool_name: name,
      root,
      whilePending: async () => recording.abort.abort(new Error("Turn stopped")),
    });
    const tool = createWorkspaceTools()[name];
    const input = name === "write_file" ? { path: "notes.txt", content: "late" } : { path: "notes.txt" };
    await expect(Promise.resolve().then(() => tool.execute(input, recording.context))).rejects.toThrow(
      "Turn stopped",
    );
    expect(await snapshotDirectory(root)).toEqual(before);
  });
});
