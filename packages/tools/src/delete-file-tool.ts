import { lstat, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { define_agent_tool } from "@parley/session-core";
import { z } from "zod";
import { approveFileChange } from "./approve-file-change.js";
import { openConfinedDirectory, pathInDirectory } from "./confined-open.js";
import { DENIED_RESULT, explanationInputSchema } from "./request-tool-approval.js";
import { type ConfinedPath, confinePath, errorCode, WorkspacePathError } from "./workspace-path.js";

export const deleteFileInputSchema = z.strictObject({
  path: z.string().min(1).describe("File path relative to the workspace root"),
  explanation: explanationInputSchema,
});
export type DeleteFileInput = z.infer<typeof deleteFileInputSchema>;

export type DeleteFileResult = { success: true; deleted: string } | typeof DENIED_RESULT;

export const DELETE_FILE_DESCRIPTION =
  "Delete one file inside the workspace (not a directory). Asks the user for approval first.";

export const deleteFileTool = define_agent_tool({
  description: DELETE_FILE_DESCRIPTION,
  input_schema: deleteFileInputSchema,
  // Touches nothing before its approval returns (approveFileChange): the Interaction, or the
  // `running` commit of an approval given without asking, is its checkpoint.
  side_effects: "after_asking",
  async execute(input, context): Promise<DeleteFileResult> {
    const approved = await approveFileChange(context, {
      input,
      schema: deleteFileInputSchema,
      description: DELETE_FILE_DESCRIPTION,
      check: assertMayDelete,
      check_approved: assertDeletable,
      with_content: false,
    });
    if (!approved) return DENIED_RESULT;
    await unlinkConfined(approved.root, approved.target);
    return { success: true, deleted: approved.target.relative };
  },
});

/**
 * Before asking: the path must stay inside the workspace and must not name a directory. A missing
 * file is not refused yet: whether it exists is decided when the side effect happens (it may appear
 * or vanish while the approval waits), and the tool then fails with "File not found".
 */
async function assertMayDelete(root: string, requested: string): Promise<ConfinedPath> {
  const target = await confinePath(root, requested);
  if (target.relative === "." || (target.exists && !(await stat(target.real)).isFile())) {
    throw new WorkspacePathError(`Not a file: ${target.relative}`);
  }
  return target;
}

/**
 * Checks the target and returns the directory entry to unlink: for a symbolic link (whose target is
 * inside the workspace, or `confinePath` refuses it) that is the link itself, never what it points to.
 */
async function assertDeletable(
  root: string,
  requested: string,
): Promise<{ relative: string; entry: string }> {
  const target = await confinePath(root, requested);
  if (!target.exists) throw new WorkspacePathError(`File not found: ${target.relative}`);
  if (target.relative === "." || !(await stat(target.real)).isFile()) {
    throw new WorkspacePathError(`Not a file: ${target.relative}`);
  }
  const parent = await confinePath(root, path.posix.dirname(target.relative));
  const entry = path.join(parent.real, path.posix.basename(target.relative));
  const entryStats = await lstat(entry);
  if (!entryStats.isFile() && !entryStats.isSymbolicLink()) {
    throw new WorkspacePathError(`Not a file: ${target.relative}`);
  }
  return { relative: target.relative, entry };
}

/**
 * Unlinks the entry through its directory held open (walked from the root without following
 * links), so a parent swapped for a link after the check cannot redirect the unlink. `unlink`
 * itself never follows a link at the last component.
 */
async function unlinkConfined(root: string, target: { relative: string; entry: string }): Promise<void> {
  const directory = await openConfinedDirectory(root, path.dirname(target.entry), {
    create: false,
    relative: target.relative,
  });
  try {
    const entry = pathInDirectory(directory, path.basename(target.entry));
    const entryStats = await lstat(entry).catch((error: unknown) => {
      if (errorCode(error) === "ENOENT") throw new WorkspacePathError(`File not found: ${target.relative}`);
      throw error;
    });
    if (!entryStats.isFile() && !entryStats.isSymbolicLink()) {
      throw new WorkspacePathError(`Not a file: ${target.relative}`);
    }
    await unlink(entry);
  } finally {
    await directory.close();
  }
}
