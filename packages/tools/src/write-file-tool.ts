import { stat } from "node:fs/promises";
import { define_agent_tool } from "@parley/session-core";
import { z } from "zod";
import { approveFileChange } from "./approve-file-change.js";
import { openConfinedFile } from "./confined-open.js";
import { DENIED_RESULT, explanationInputSchema } from "./request-tool-approval.js";
import { confinePath, WorkspacePathError } from "./workspace-path.js";

/** Largest content accepted, in characters (the schema rejects more before any approval). */
export const WRITE_FILE_MAX_CHARS = 1024 * 1024;

export const writeFileInputSchema = z.strictObject({
  path: z.string().min(1).describe("File path relative to the workspace root"),
  content: z.string().max(WRITE_FILE_MAX_CHARS).describe("The complete new content of the file (UTF-8)"),
  explanation: explanationInputSchema,
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
  // Touches nothing before its approval returns (approveFileChange): the Interaction, or the
  // `running` commit of an approval given without asking, is its checkpoint.
  side_effects: "after_asking",
  async execute(input, context): Promise<WriteFileResult> {
    const approved = await approveFileChange(context, {
      input,
      schema: writeFileInputSchema,
      description: WRITE_FILE_DESCRIPTION,
      check: assertWritable,
      check_approved: assertWritable,
      with_content: true,
    });
    if (!approved) return DENIED_RESULT;
    const {
      root,
      target,
      input: { content },
    } = approved;
    // One descriptor, opened through directories held open from the root (missing ones made there)
    // and without following anything swapped in after the check; truncated only once it is known
    // to be a regular file.
    const handle = await openConfinedFile(root, target, { write: true });
    try {
      await handle.truncate(0);
      await handle.writeFile(content, "utf8");
    } finally {
      await handle.close();
    }
    return {
      success: true,
      path: target.relative,
      bytes_written: Buffer.byteLength(content, "utf8"),
      created: !target.exists,
    };
  },
});

async function assertWritable(root: string, requested: string) {
  const target = await confinePath(root, requested);
  if (target.relative === ".") throw new WorkspacePathError("Cannot write to the workspace root itself");
  if (target.exists && !(await stat(target.real)).isFile()) {
    throw new WorkspacePathError(`Not a regular file: ${target.relative}`);
  }
  return target;
}
