import { stat } from "node:fs/promises";
import { define_agent_tool, type ToolCallContext } from "@parley/session-core";
import { z } from "zod";
import { DENIED_RESULT } from "./request-tool-approval.js";
import { runShellCommand, type ShellRunResult } from "./run-shell-command.js";
import { confinePath, realWorkspaceRoot, requireWorkspace, WorkspacePathError } from "./workspace-path.js";

export const SHELL_DEFAULT_TIMEOUT_MS = 30_000;
export const SHELL_MAX_TIMEOUT_MS = 120_000;
/** Bytes kept of stdout and of stderr, each; the rest is dropped and `truncated` is set. */
export const SHELL_MAX_OUTPUT_BYTES = 64 * 1024;

export const shellInputSchema = z.strictObject({
  command: z.string().trim().min(1).max(10_000).describe("The command line, run with /bin/sh -c"),
  cwd: z
    .string()
    .min(1)
    .optional()
    .describe("Working directory relative to the workspace root; the root when omitted"),
  timeout_ms: z
    .number()
    .int()
    .positive()
    .max(SHELL_MAX_TIMEOUT_MS)
    .optional()
    .describe(`Kill the command after this many milliseconds (default ${SHELL_DEFAULT_TIMEOUT_MS})`),
});
export type ShellInput = z.infer<typeof shellInputSchema>;

export type ShellResult = ShellRunResult | typeof DENIED_RESULT;

export const SHELL_DESCRIPTION =
  "Run a shell command (/bin/sh -c) in the workspace and return its exit code and output (each stream capped at 64 KiB). Asks the user for approval first.";

/**
 * The `shell` tool. Confinement covers its working directory only: once approved, the command
 * itself can reach anything the server's user can, which is why every run needs an approval (or the
 * session's `always-allow` mode). The command gets a minimal environment, never the server's secrets.
 */
export const shellTool = define_agent_tool({
  description: SHELL_DESCRIPTION,
  input_schema: shellInputSchema,
  async execute(input, context): Promise<ShellResult> {
    const root = await realWorkspaceRoot(requireWorkspace(context));
    const cwd = await assertDirectory(root, input.cwd ?? ".");
    const decision = await context.interactions.approval.request({
      turn_id: context.turn_id,
      tool_call_id: context.tool_call_id,
      tool_name: context.tool_name,
      source_type: "shell",
      payload: {
        operation: "exec",
        command: input.command,
        cwd: cwd.relative,
        workspace: { name: workspaceName(context), cwd: cwd.real },
      },
    });
    if (!decision.approved) return DENIED_RESULT;
    // Resolved again: the workspace may have changed while the approval was pending.
    const approvedCwd = await assertDirectory(root, input.cwd ?? ".");
    return runShellCommand({
      command: input.command,
      cwd: approvedCwd.real,
      timeout_ms: input.timeout_ms ?? SHELL_DEFAULT_TIMEOUT_MS,
      max_output_bytes: SHELL_MAX_OUTPUT_BYTES,
      abort_signal: context.abort_signal,
      env: shellEnvironment(root),
    });
  },
});

/** The workspace as a person knows it: the operator's id, or the session's own folder. */
function workspaceName(context: ToolCallContext): string {
  return context.workspace?.workspace_id ?? "session workspace";
}

async function assertDirectory(root: string, requested: string) {
  const target = await confinePath(root, requested);
  if (!target.exists) throw new WorkspacePathError(`Working directory not found: ${target.relative}`);
  if (!(await stat(target.real)).isDirectory()) {
    throw new WorkspacePathError(`Working directory is not a directory: ${target.relative}`);
  }
  return target;
}

function shellEnvironment(root: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: root,
    LANG: "C.UTF-8",
    TERM: "dumb",
  };
}
