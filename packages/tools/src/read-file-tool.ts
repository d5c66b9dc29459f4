import { define_agent_tool } from "@parley/session-core";
import { z } from "zod";
import { openConfinedFile } from "./confined-open.js";
import { decodeOutputBytes, replacementNote } from "./output-text.js";
import { confinePath, realWorkspaceRoot, requireWorkspace, WorkspacePathError } from "./workspace-path.js";

/** Files larger than this are returned cut at this many bytes, flagged `truncated`. */
export const READ_FILE_MAX_BYTES = 256 * 1024;

export const readFileInputSchema = z.strictObject({
  path: z.string().min(1).describe("File path relative to the workspace root"),
});
export type ReadFileInput = z.infer<typeof readFileInputSchema>;

export type ReadFileResult = {
  path: string;
  content: string;
  size: number;
  truncated: boolean;
  /** Present when NUL bytes or invalid UTF-8 in the file were replaced (a binary file). */
  note?: string;
};

export const READ_FILE_DESCRIPTION =
  "Read a UTF-8 text file inside the workspace. Returns at most 256 KiB of content; larger files are cut and flagged truncated.";

export const readFileTool = define_agent_tool({
  description: READ_FILE_DESCRIPTION,
  input_schema: readFileInputSchema,
  // Reads only: no checkpoint before it runs, and it may run again after a crash.
  side_effects: false,
  async execute(input, context): Promise<ReadFileResult> {
    const root = await realWorkspaceRoot(requireWorkspace(context));
    const target = await confinePath(root, input.path);
    if (!target.exists) throw new WorkspacePathError(`File not found: ${target.relative}`);
    // One descriptor, opened without following anything swapped in after the check above.
    const handle = await openConfinedFile(root, target, { write: false });
    try {
      const stats = await handle.stat();
      const length = Math.min(stats.size, READ_FILE_MAX_BYTES);
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, 0);
      const truncated = stats.size > READ_FILE_MAX_BYTES;
      const decoded = decodeOutputBytes(buffer.subarray(0, bytesRead), { cut: truncated });
      const note = replacementNote([{ name: "content", decoded }]);
      return {
        path: target.relative,
        content: decoded.text,
        size: stats.size,
        truncated,
        ...(note === undefined ? {} : { note }),
      };
    } finally {
      await handle.close();
    }
  },
});
