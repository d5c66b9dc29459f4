import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { define_agent_tool } from "@parley/session-core";
import { z } from "zod";
import { openConfinedDirectory } from "./confined-open.js";
import { confinePath, realWorkspaceRoot, requireWorkspace, WorkspacePathError } from "./workspace-path.js";

/** A listing stops after this many entries, flagged `truncated`. */
export const LIST_FILES_MAX_ENTRIES = 1000;

export const listFilesInputSchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .optional()
    .describe("Directory relative to the workspace root; the root when omitted"),
});
export type ListFilesInput = z.infer<typeof listFilesInputSchema>;

export type ListedEntry = { name: string; type: "file" | "directory" | "symlink" | "other" };

export type ListFilesResult = {
  path: string;
  entries: ListedEntry[];
  truncated: boolean;
};

export const LIST_FILES_DESCRIPTION =
  "List the entries of a directory inside the workspace (not recursive), sorted by name.";

export const listFilesTool = define_agent_tool({
  description: LIST_FILES_DESCRIPTION,
  input_schema: listFilesInputSchema,
  // Reads only: no checkpoint before it runs, and it may run again after a crash.
  side_effects: false,
  async execute(input, context): Promise<ListFilesResult> {
    const root = await realWorkspaceRoot(requireWorkspace(context));
    const target = await confinePath(root, input.path ?? ".");
    if (!target.exists) throw new WorkspacePathError(`Directory not found: ${target.relative}`);
    if (!(await stat(target.real)).isDirectory())
      throw new WorkspacePathError(`Not a directory: ${target.relative}`);
    // Listed through a descriptor walked from the root without following links (see confined-open).
    const directory = await openConfinedDirectory(root, target.real, {
      create: false,
      relative: target.relative,
    });
    let dirents: Dirent[];
    try {
      dirents = await readdir(`/proc/self/fd/${directory.fd}`, { withFileTypes: true });
    } finally {
      await directory.close();
    }
    const entries = dirents
      .map((dirent): ListedEntry => ({ name: dirent.name, type: entryType(dirent) }))
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    return {
      path: target.relative,
      entries: entries.slice(0, LIST_FILES_MAX_ENTRIES),
      truncated: entries.length > LIST_FILES_MAX_ENTRIES,
    };
  },
});

function entryType(dirent: {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}): ListedEntry["type"] {
  if (dirent.isFile()) return "file";
  if (dirent.isDirectory()) return "directory";
  if (dirent.isSymbolicLink()) return "symlink";
  return "other";
}
