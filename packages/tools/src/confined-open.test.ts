import { execFileSync } from "node:child_process";
import { mkdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openConfinedDirectory, openConfinedFile } from "./confined-open.js";
import { readFileTool } from "./read-file-tool.js";
import { snapshotDirectory } from "./testing/directory-snapshot.js";
import { createRecordingToolContext, createTempWorkspace } from "./testing/recording-tool-context.js";
import { swapForLink } from "./testing/swap-for-link.js";
import { confinePath, errorCode, WorkspacePathError } from "./workspace-path.js";
import { writeFileTool } from "./write-file-tool.js";

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  ({ base, root, outside } = await createTempWorkspace());
  await mkdir(path.join(root, "sub"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, "sub", "notes.txt"), "inside");
  await writeFile(path.join(root, "notes.txt"), "inside");
  await writeFile(path.join(outside, "notes.txt"), "SECRET");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const CHANGED = /Path changed into a symbolic link or file while the tool ran/;

describe("a path checked, then swapped for a symbolic link out, then opened", () => {
  it("read: a parent directory swapped is refused, nothing outside is read", async () => {
    const checked = await confinePath(root, "sub/notes.txt");
    await swapForLink(root, "sub", outside);
    await expect(openConfinedFile(root, checked, { write: false })).rejects.toThrow(CHANGED);
  });

  it("read: the file itself swapped is refused", async () => {
    const checked = await confinePath(root, "notes.txt");
    await swapForLink(root, "notes.txt", path.join(outside, "notes.txt"));
    await expect(openConfinedFile(root, checked, { write: false })).rejects.toThrow(CHANGED);
  });

  it("write: a parent directory swapped is refused, nothing is written outside", async () => {
    const checked = await confinePath(root, "sub/new.txt");
    await swapForLink(root, "sub", outside);
    await expect(openConfinedFile(root, checked, { write: true })).rejects.toThrow(CHANGED);
    expect(await snapshotDirectory(outside)).toEqual({ "notes.txt": "file: SECRET" });
  });

  it("write: a missing parent that appears as a link out is refused", async () => {
    const checked = await confinePath(root, "deeper/new.txt");
    expect(checked.exists).toBe(false);
    await symlink(outside, path.join(root, "deeper"));
    await expect(openConfinedFile(root, checked, { write: true })).rejects.toThrow(CHANGED);
    expect(await snapshotDirectory(outside)).toEqual({ "notes.txt": "file: SECRET" });
  });

  it("write: the file swapped for a link out is refused and the target keeps its content", async () => {
    const checked = await confinePath(root, "notes.txt");
    await swapForLink(root, "notes.txt", path.join(outside, "notes.txt"));
    await expect(openConfinedFile(root, checked, { write: true })).rejects.toThrow(CHANGED);
    expect(await snapshotDirectory(outside)).toEqual({ "notes.txt": "file: SECRET" });
  });

  it("list: a directory swapped is refused", async () => {
    const checked = await confinePath(root, "sub");
    await swapForLink(root, "sub", outside);
    await expect(
      openConfinedDirectory(root, checked.real, { create: false, relative: "sub" }),
    ).rejects.toThrow(CHANGED);
  });

  it("a FIFO is refused without blocking the open", async () => {
    execFileSync("mkfifo", [path.join(root, "pipe")]);
    const checked = await confinePath(root, "pipe");
    await expect(openConfinedFile(root, checked, { write: false })).rejects.toThrow("Not a file: pipe");
    await expect(openConfinedFile(root, checked, { write: true })).rejects.toThrow(
      "Not a regular file: pipe",
    );
  });

  it("missing directories of a write are created inside the workspace", async () => {
    const checked = await confinePath(root, "a/b/c.txt");
    const handle = await openConfinedFile(root, checked, { write: true });
    await handle.writeFile("made", "utf8");
    await handle.close();
    expect((await snapshotDirectory(root))["a/b/c.txt"]).toBe("file: made");
  });
});

/**
 * The race as it happens for real: while the tools run, a directory of the workspace keeps
 * flipping between itself and a symbolic link out (what a shell command in the same workspace can
 * do). Whatever each call sees when it checks, the descriptor it reads or writes never leaves the
 * workspace.
 */
describe("tools under a concurrently flipping directory", () => {
  const ROUNDS = 300;

  /**
   * Flips `sub` until `done()`. A step may fail when a tool changed the directory meanwhile (a write
   * recreating a missing `sub`, say); the flipper carries on, the property checked stays the same.
   */
  async function flipUntil(done: () => boolean): Promise<void> {
    const directory = path.join(root, "sub");
    const stash = path.join(root, ".stash");
    const link = path.join(root, ".link");
    const steps = [
      () => symlink(outside, link),
      () => rename(directory, stash),
      () => rename(link, directory), // sub → outside
      () => rename(directory, link),
      () => rename(stash, directory), // sub is the real directory again
      () => rm(link, { force: true }),
    ];
    while (!done()) {
      for (const step of steps) await step().catch(() => undefined);
    }
  }

  /** A refusal or a file-system error is a fine outcome under this churn; anything else fails. */
  function expectedFailure(error: unknown): null {
    if (error instanceof WorkspacePathError || errorCode(error) !== undefined) return null;
    throw error;
  }

  it("read_file never returns the outside file", async () => {
    const { context } = createRecordingToolContext({ tool_name: "read_file", root });
    let finished = false;
    const flipping = flipUntil(() => finished);
    const contents: string[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const result = await Promise.resolve(readFileTool.execute({ path: "sub/notes.txt" }, context)).catch(
          expectedFailure,
        );
        if (result !== null) contents.push(result.content);
      }
    } finally {
      finished = true;
      await flipping;
    }
    expect(contents.filter((content) => content !== "inside")).toEqual([]);
  });

  it("write_file never writes outside", async () => {
    const { context } = createRecordingToolContext({ tool_name: "write_file", root });
    let finished = false;
    const flipping = flipUntil(() => finished);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        await Promise.resolve(
          writeFileTool.execute({ path: "sub/notes.txt", content: `round ${round}` }, context),
        ).catch(expectedFailure);
      }
    } finally {
      finished = true;
      await flipping;
    }
    expect(await snapshotDirectory(outside)).toEqual({ "notes.txt": "file: SECRET" });
  });
});
