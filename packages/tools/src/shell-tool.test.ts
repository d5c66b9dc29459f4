import { access, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ShellAbortedError } from "./run-shell-command.js";
import type { ShellSandbox } from "./shell-sandbox.js";
import { createShellTool, SHELL_MAX_OUTPUT_BYTES } from "./shell-tool.js";
import { snapshotDirectory } from "./testing/directory-snapshot.js";
import { processesWorkingIn } from "./testing/processes-working-in.js";
import { createRecordingToolContext, createTempWorkspace } from "./testing/recording-tool-context.js";

let base: string;
let root: string;

beforeEach(async () => {
  ({ base, root } = await createTempWorkspace());
  await mkdir(path.join(root, "sub"), { recursive: true });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const sandboxes: Array<{ label: string; sandbox: ShellSandbox }> = [
  { label: "in the bubblewrap sandbox", sandbox: { kind: "bubblewrap", network: false } },
  { label: "unsandboxed (PARLEY_SANDBOX=off)", sandbox: { kind: "unsandboxed" } },
];

describe.each(sandboxes)("shell $label", ({ sandbox }) => {
  const shellTool = createShellTool({ sandbox });

  it("asks a shell approval with operation exec, the command and the relative cwd, then runs there", async () => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "shell", root });
    const result = await shellTool.execute({ command: "pwd; echo oops >&2; exit 3", cwd: "sub" }, context);
    expect(approvals).toEqual([
      {
        turn_id: "turn:test",
        tool_call_id: "call_test",
        tool_name: "shell",
        source_type: "shell",
        payload: {
          operation: "exec",
          command: "pwd; echo oops >&2; exit 3",
          cwd: "sub",
          workspace: { name: "session workspace", cwd: path.join(root, "sub") },
          validated_input: { command: "pwd; echo oops >&2; exit 3", cwd: "sub" },
        },
      },
    ]);
    expect(result).toEqual({
      exit_code: 3,
      signal: null,
      stdout: `${path.join(root, "sub")}\n`,
      stderr: "oops\n",
      timed_out: false,
      truncated: false,
    });
  });

  it("runs in the workspace root when no cwd is given", async () => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "shell", root });
    const result = await shellTool.execute({ command: "pwd" }, context);
    expect(approvals[0]?.payload).toEqual({
      operation: "exec",
      command: "pwd",
      cwd: ".",
      workspace: { name: "session workspace", cwd: root },
      validated_input: { command: "pwd" },
    });
    expect(result).toMatchObject({ exit_code: 0, stdout: `${root}\n` });
  });

  it("runs the approver's edited command in the edited directory", async () => {
    const { context, approvals } = createRecordingToolContext({
      tool_name: "shell",
      root,
      edited_input: { command: "pwd; echo edited", cwd: "sub" },
    });
    const result = await shellTool.execute(
      { command: "rm -rf sub", explanation: "clean up", timeout_ms: 5_000 },
      context,
    );
    expect(approvals[0]?.payload).toMatchObject({
      command: "rm -rf sub",
      validated_input: { command: "rm -rf sub", timeout_ms: 5_000 },
      model_explanation: "clean up",
    });
    expect(result).toMatchObject({ exit_code: 0, stdout: `${path.join(root, "sub")}\nedited\n` });
    await access(path.join(root, "sub"));
  });

  it("runs nothing when the approval is not given", async () => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "shell", root, approve: false });
    const before = await snapshotDirectory(root);
    await expect(shellTool.execute({ command: "touch made.txt" }, context)).resolves.toEqual({
      success: false,
      error: "denied",
    });
    expect(approvals).toHaveLength(1);
    expect(await snapshotDirectory(root)).toEqual(before);
  });

  it("kills the command and its children at the timeout", async () => {
    const { context } = createRecordingToolContext({ tool_name: "shell", root });
    const result = await shellTool.execute(
      { command: "echo begun; sleep 30 & sleep 30", timeout_ms: 300 },
      context,
    );
    expect(result).toEqual({
      exit_code: null,
      signal: "SIGKILL",
      stdout: "begun\n",
      stderr: "",
      timed_out: true,
      truncated: false,
    });
    // Inside the sandbox's PID namespace `$!` means nothing out here: find the background sleep by
    // its working directory instead.
    await waitUntilNoProcessWorksIn(root);
  });

  it("caps each output stream and flags the truncation", async () => {
    const { context } = createRecordingToolContext({ tool_name: "shell", root });
    const result = await shellTool.execute(
      { command: `head -c ${SHELL_MAX_OUTPUT_BYTES * 3} /dev/zero | tr '\\0' a; echo small >&2` },
      context,
    );
    if (!("stdout" in result)) throw new Error("expected a shell result");
    expect(result.stdout).toBe("a".repeat(SHELL_MAX_OUTPUT_BYTES));
    expect(result.stderr).toBe("small\n");
    expect(result.truncated).toBe(true);
    expect(result.exit_code).toBe(0);
  });

  it("stops the command when the tool call is aborted", async () => {
    const { context, abort } = createRecordingToolContext({ tool_name: "shell", root });
    const running = shellTool.execute({ command: "touch started; sleep 30" }, context);
    await waitForFile(path.join(root, "started"));
    abort.abort();
    await expect(running).rejects.toBeInstanceOf(ShellAbortedError);
  });

  it("does not pass the server's environment on to the command", async () => {
    process.env.PARLEY_TOOLS_TEST_SECRET = "sk-should-not-leak";
    try {
      const { context } = createRecordingToolContext({ tool_name: "shell", root });
      const result = await shellTool.execute({ command: "env" }, context);
      if (!("stdout" in result)) throw new Error("expected a shell result");
      expect(result.stdout).not.toContain("sk-should-not-leak");
      expect(result.stdout).toContain(`HOME=${root}`);
    } finally {
      delete process.env.PARLEY_TOOLS_TEST_SECRET;
    }
  });

  it("fails clearly on a missing or non-directory cwd, without asking", async () => {
    const { context, approvals } = createRecordingToolContext({ tool_name: "shell", root });
    await expect(shellTool.execute({ command: "ls", cwd: "nope" }, context)).rejects.toThrow(
      "Working directory not found: nope",
    );
    await shellTool.execute({ command: "touch file.txt" }, context);
    await expect(shellTool.execute({ command: "ls", cwd: "file.txt" }, context)).rejects.toThrow(
      "Working directory is not a directory: file.txt",
    );
    expect(approvals).toHaveLength(1);
  });
});

async function waitForFile(file: string): Promise<void> {
  for (;;) {
    try {
      await access(file);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** Returns once no process works in `directory` (a killed orphan is reaped shortly after). */
async function waitUntilNoProcessWorksIn(directory: string): Promise<void> {
  while ((await processesWorkingIn(directory)).length > 0) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
