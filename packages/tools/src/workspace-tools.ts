import type { AnyAgentTool } from "@parley/session-core";
import { deleteFileTool } from "./delete-file-tool.js";
import { listFilesTool } from "./list-files-tool.js";
import { readFileTool } from "./read-file-tool.js";
import { shellTool } from "./shell-tool.js";
import { writeFileTool } from "./write-file-tool.js";

/** The built-in workspace tools under the names the design fixes (DESIGN.md §6, §9). */
export function createWorkspaceTools(): {
  read_file: AnyAgentTool;
  list_files: AnyAgentTool;
  write_file: AnyAgentTool;
  delete_file: AnyAgentTool;
  shell: AnyAgentTool;
} {
  return {
    read_file: readFileTool,
    list_files: listFilesTool,
    write_file: writeFileTool,
    delete_file: deleteFileTool,
    shell: shellTool,
  };
}
