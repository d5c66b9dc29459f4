import { open } from "node:fs/promises";
import { define_agent_tool } from "@parley/session-core";
import { z } from "zod";
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
};

export const READ_FILE_DESCRIPTION =
  "Read a UTF-8 text file inside the workspace. Returns at most 256 KiB of content; larger files are cut and flagged truncated.";

export const readFileTool = define_agent_tool({
  description: READ_FILE_DESCRIPTION,
  input_schema: readFileInputSchema,
  async execute(input, context): Promise<ReadFileResult> {
    const root = await realWorkspaceRoot(requireWorkspace(context));
    const target = await confinePath(root, input.path);
    if (!target.exists) throw new WorkspacePathError(`File not found: ${target.relative}`);
    const handle = await open(target.real, "r");
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new WorkspacePathError(`Not a file: ${target.relative}`);
      const length = Math.min(stats.size, READ_FILE_MAX_BYTES);
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, 0);
      return {
        path: target.relative,
        content: buffer.subarray(0, bytesRead).toString("utf8"),
        size: stats.size,
        truncated: stats.size > READ_FILE_MAX_BYTES,
      };
    } finally {
      await handle.close();
    }
  },
});
