import { execFileSync } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { APPROVAL_PREVIOUS_CONTENT_MAX_BYTES } from "@parley/session-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeApprovalTarget } from "./approval-target.js";
import { createTempWorkspace } from "./testing/recording-tool-context.js";
import { swapForLink } from "./testing/swap-for-link.js";
import { confinePath } from "./workspace-path.js";

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  ({ base, root, outside } = await createTempWorkspace());
  await mkdir(path.join(root, "sub"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, "notes.txt"), "inside");
  await writeFile(path.join(root, "sub", "notes.txt"), "inside too");
  await writeFile(path.join(outside, "notes.txt"), "SECRET");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/**
 * Each case confines the path as the tools do, then changes the workspace (what a shell command in
 * a shared workspace can do at that moment), then asks for the preview: the swap lands exactly
 * between confinement and read.
 */
describe("the approval preview of a target changed after confinement", () => {
  it("shows size and content of a regular file inside", async () => {
    const checked = await confinePath(root, "notes.txt");
    expect(await describeApprovalTarget(root, checked, { withContent: true })).toEqual({
      path: "notes.txt",
      exists: true,
      size_bytes: 6,
      previous_content: "inside",
    });
  });

  it("the file swapped for a link to a file outside shows nothing of it", async () => {
    const checked = await confinePath(root, "notes.txt");
    await swapForLink(root, "notes.txt", path.join(outside, "notes.txt"));
    expect(await describeApprovalTarget(root, checked, { withContent: true })).toEqual({
      path: "notes.txt",
      exists: true,
    });
  });

  it("the file swapped for a link to /proc/self/environ shows nothing of the environment", async () => {
    const checked = await confinePath(root, "notes.txt");
    await swapForLink(root, "notes.txt", "/proc/self/environ");
    const preview = await describeApprovalTarget(root, checked, { withContent: true });
    expect(preview).toEqual({ path: "notes.txt", exists: true });
    expect(JSON.stringify(preview)).not.toContain("PATH=");
  });

  it("a parent directory swapped for a link out shows nothing of the outside file", async () => {
    const checked = await confinePath(root, "sub/notes.txt");
    await swapForLink(root, "sub", outside);
    expect(await describeApprovalTarget(root, checked, { withContent: true })).toEqual({
      path: "sub/notes.txt",
      exists: true,
    });
  });

  it("the file swapped for a FIFO returns at once with no content (no writer ever opens it)", async () => {
    const checked = await confinePath(root, "notes.txt");
    await rm(path.join(root, "notes.txt"));
    execFileSync("mkfifo", [path.join(root, "notes.txt")]);
    // A blocking open would wait for a writer forever, so ending at all is the check.
    expect(await describeApprovalTarget(root, checked, { withContent: true })).toEqual({
      path: "notes.txt",
      exists: true,
    });
  });

  it("the file swapped for a directory shows no content", async () => {
    const checked = await confinePath(root, "notes.txt");
    await rm(path.join(root, "notes.txt"));
    await mkdir(path.join(root, "notes.txt"));
    expect(await describeApprovalTarget(root, checked, { withContent: true })).toEqual({
      path: "notes.txt",
      exists: true,
    });
  });

  it("a file grown past the cap after confinement shows its size only", async () => {
    const checked = await confinePath(root, "notes.txt");
    await writeFile(path.join(root, "notes.txt"), "x".repeat(APPROVAL_PREVIOUS_CONTENT_MAX_BYTES + 1));
    expect(await describeApprovalTarget(root, checked, { withContent: true })).toEqual({
      path: "notes.txt",
      exists: true,
      size_bytes: APPROVAL_PREVIOUS_CONTENT_MAX_BYTES + 1,
    });
  });

  it("a missing target is a new file", async () => {
    const checked = await confinePath(root, "new.txt");
    expect(await describeApprovalTarget(root, checked, { withContent: true })).toEqual({
      path: "new.txt",
      exists: false,
    });
  });
});
