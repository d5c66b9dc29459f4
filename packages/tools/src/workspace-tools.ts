import type { AnyAgentTool } from "@parley/session-core";
import { deleteFileTool } from "./delete-file-tool.js";
import { listFilesTool } from "./list-files-tool.js";
import { readFileTool } from "./read-file-tool.js";
import type { ShellSandbox } from "./shell-sandbox.js";
import { createShellTool, shellTool } from "./shell-tool.js";
import { writeFileTool } from "./write-file-tool.js";

export interface WorkspaceTools {
  read_file: AnyAgentTool;
  list_files: AnyAgentTool;
  write_file: AnyAgentTool;
  delete_file: AnyAgentTool;
  /** Absent when the server has no sandbox for it (see `chooseShellSandbox`). */
  shell?: AnyAgentTool;
}

/**
 * The built-in workspace tools under their public names (docs/behaviour.md#workspaces-and-tools). `shell`: the
 * sandbox its commands run in (default: bubblewrap, no network); null leaves the tool out.
 */
export function createWorkspaceTools(options?: { shell?: ShellSandbox }): Required<WorkspaceTools>;
export function createWorkspaceTools(options: { shell: ShellSandbox | null }): WorkspaceTools;
export function createWorkspaceTools(options: { shell?: ShellSandbox | null } = {}): WorkspaceTools {
  const tools: WorkspaceTools = {
    read_file: readFileTool,
    list_files: listFilesTool,
    write_file: writeFileTool,
    delete_file: deleteFileTool,
  };
  if (options.shell === null) return tools;
  return {
    ...tools,
    shell: options.shell === undefined ? shellTool : createShellTool({ sandbox: options.shell }),
  };
}
