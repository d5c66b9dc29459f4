import { constants } from "node:fs";
import { mkdir, open, stat } from "node:fs/promises";
import path from "node:path";
import { define_agent_tool } from "@parley/session-core";
import { z } from "zod";
import { describeApprovalTarget } from "./approval-target.js";
import { DENIED_RESULT, requestToolApproval } from "./request-tool-approval.js";
import {
  confinePath,
  errorCode,
  realWorkspaceRoot,
  requireWorkspace,
  WorkspacePathError,
} from "./workspace-path.js";

/** Largest content accepted, in characters (the schema rejects more before any approval). */
export const WRITE_FILE_MAX_CHARS = 1024 * 1024;

export const writeFileInputSchema = z.strictObject({
  path: z.string().min(1).describe("File path relative to the workspace root"),
  content: z.string().max(WRITE_FILE_MAX_CHARS).describe("The complete new content of the file (UTF-8)"),
});
export type WriteFileInput = z.infer<typeof writeFileInputSchema>;

export type WriteFileResult =
  | { success: true; path: string; bytes_written: number; created: boolean }
  | typeof DENIED_RESULT;

export const WRITE_FILE_DESCRIPTION =
  "Create or overwrite a file inside the workspace with the given content; missing parent directories are created. Asks the user for approval first.";

export const writeFileTool = define_agent_tool({
  description: WRITE_FILE_DESCRIPTION,
  input_schema: writeFileInputSchema,
  async execute(input, context): Promise<WriteFileResult> {
    const root = await realWorkspaceRoot(requireWorkspace(context));
    const before = await assertWritable(root, input.path);
    const decision = await requestToolApproval(
      context,
      input,
      WRITE_FILE_DESCRIPTION,
      await describeApprovalTarget(before, { withContent: true }),
    );
    if (!decision.approved) return DENIED_RESULT;
    // A Turn stopped or taken over while the approval was pending must not act any more.
    context.abort_signal.throwIfAborted();
    // Resolved again: the workspace may have changed while the approval was pending.
    const target = await assertWritable(root, input.path);
    await mkdir(path.dirname(target.real), { recursive: true });
    await writeWithoutFollowing(target.real, target.relative, input.content);
    return {
      success: true,
      path: target.relative,
      bytes_written: Buffer.byteLength(input.content, "utf8"),
      created: !target.exists,
    };
  },
});

/**
 * `O_NOFOLLOW`: `real` has every component resolved, so a symbolic link found at the last component
 * now was put there after the check; the write is refused instead of following it.
 */
async function writeWithoutFollowing(real: string, relative: string, content: string): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
  const handle = await open(real, flags, 0o644).catch((error: unknown) => {
    if (errorCode(error) === "ELOOP") {
      throw new WorkspacePathError(`Path became a symbolic link while the approval was pending: ${relative}`);
    }
    throw error;
  });
  try {
    await handle.writeFile(content, "utf8");
  } finally {
    await handle.close();
  }
}

async function assertWritable(root: string, requested: string) {
  const target = await confinePath(root, requested);
  if (target.relative === ".") throw new WorkspacePathError("Cannot write to the workspace root itself");
  if (target.exists && !(await stat(target.real)).isFile()) {
    throw new WorkspacePathError(`Not a regular file: ${target.relative}`);
  }
  return target;
}
