import { stat } from "node:fs/promises";
import { define_agent_tool, type JsonValue, type ToolCallContext } from "@parley/session-core";
import { z } from "zod";
import { approvedInput, DENIED_RESULT, explanationInputSchema } from "./request-tool-approval.js";
import { runShellCommand, type ShellRunResult } from "./run-shell-command.js";
import { DEFAULT_SHELL_SANDBOX, type ShellSandbox } from "./shell-sandbox.js";
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
  explanation: explanationInputSchema,
});
export type ShellInput = z.infer<typeof shellInputSchema>;

export type ShellResult = ShellRunResult | typeof DENIED_RESULT;

export const SHELL_DESCRIPTION =
  "Run a shell command (/bin/sh -c) in the workspace and return its exit code and output (each stream capped at 64 KiB). Asks the user for approval first.";

/**
 * The `shell` tool, running each approved command in `sandbox`: by default a
 * bubblewrap sandbox whose only writable path is the workspace, with no network, no view of the
 * server's processes and an environment of `PATH`, `HOME` and `LANG` only. Every run still needs
 * an approval (or the session's `always-allow` mode).
 */
export function createShellTool(options: { sandbox?: ShellSandbox } = {}) {
  const sandbox = options.sandbox ?? DEFAULT_SHELL_SANDBOX;
  return define_agent_tool({
    description: shellDescription(sandbox),
    input_schema: shellInputSchema,
    // Runs nothing before its approval returns: the Interaction, or the `running` commit of an
    // approval given without asking, is its checkpoint.
    side_effects: "after_asking",
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
          validated_input: editableShellInput(input),
          ...(input.explanation === undefined ? {} : { model_explanation: input.explanation }),
        },
      });
      if (!decision.approved) return DENIED_RESULT;
      const approved = approvedInput(shellInputSchema, decision, input);
      // Resolved again: the workspace may have changed while the approval was pending (and the
      // approver may have edited the directory, which is confined like the model's).
      const approvedCwd = await assertDirectory(root, approved.cwd ?? ".");
      return runShellCommand({
        command: approved.command,
        workspace_root: root,
        cwd: approvedCwd.real,
        timeout_ms: approved.timeout_ms ?? SHELL_DEFAULT_TIMEOUT_MS,
        max_output_bytes: SHELL_MAX_OUTPUT_BYTES,
        abort_signal: context.abort_signal,
        sandbox,
      });
    },
  });
}

/**
 * What the approver may edit (checked against `shellInputSchema` when answered): the command, its
 * directory and timeout as the model gave them, without the model's explanation.
 */
function editableShellInput(input: ShellInput): { [key: string]: JsonValue } {
  return {
    command: input.command,
    ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
    ...(input.timeout_ms === undefined ? {} : { timeout_ms: input.timeout_ms }),
  };
}

/** What the model is told: in the sandbox, also what the command cannot do, so it does not try. */
export function shellDescription(sandbox: ShellSandbox): string {
  if (sandbox.kind === "unsandboxed") return SHELL_DESCRIPTION;
  const network = sandbox.network ? "" : ", without network access";
  return `${SHELL_DESCRIPTION} It runs in a sandbox: only the workspace is writable (and a private, empty /tmp)${network}.`;
}

/** The `shell` tool in the default sandbox (bubblewrap, no network). */
export const shellTool = createShellTool();

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
