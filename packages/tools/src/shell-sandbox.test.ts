import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ShellRunResult } from "./run-shell-command.js";
import type { ShellSandbox } from "./shell-sandbox.js";
import { createShellTool, SHELL_DESCRIPTION } from "./shell-tool.js";
import { createRecordingToolContext, createTempWorkspace } from "./testing/recording-tool-context.js";

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  ({ base, root, outside } = await createTempWorkspace());
  await mkdir(root, { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "other-session-secret");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function run(command: string, sandbox: ShellSandbox = { kind: "bubblewrap", network: false }) {
  const { context } = createRecordingToolContext({ tool_name: "shell", root });
  const result = await createShellTool({ sandbox }).execute({ command }, context);
  if (!("stdout" in result)) throw new Error("expected a shell result");
  return result as ShellRunResult;
}

describe("the bubblewrap sandbox", () => {
  it("gives the command and bwrap itself PATH, HOME and LANG only", async () => {
    process.env.PARLEY_TOOLS_TEST_SECRET = "sk-should-not-leak";
    try {
      const result = await run(
        "env; echo ---; tr '\\0' '\\n' < /proc/1/environ; echo ---; tr '\\0' '\\n' < /proc/$PPID/environ",
      );
      const [env, pid1, parent] = result.stdout
        .split("---\n")
        .map((block) => block.trim().split("\n").sort());
      expect(env).toEqual([`HOME=${root}`, "LANG=C.UTF-8", expect.stringMatching(/^PATH=/), `PWD=${root}`]);
      expect(pid1).toEqual([`HOME=${root}`, "LANG=C.UTF-8", expect.stringMatching(/^PATH=/)]);
      expect(parent).toEqual(pid1);
      expect(result.stdout).not.toContain("sk-should-not-leak");
    } finally {
      delete process.env.PARLEY_TOOLS_TEST_SECRET;
    }
  });

  it("shows no process of the server: a new PID namespace", async () => {
    const result = await run("ps -e -o pid=,comm=");
    const commands = result.stdout
      .trim()
      .split("\n")
      .map((line) => line.trim().split(/\s+/)[1]);
    expect(commands).toEqual(["bwrap", "sh", "ps"]);
    expect(result.stdout).not.toContain("node");
  });

  it("writes nowhere but the workspace", async () => {
    const result = await run(
      [
        `echo kept > ${root}/inside.txt && echo inside-ok`,
        `echo x > ${outside}/planted.txt || echo outside-refused`,
        "touch /usr/planted || echo usr-refused",
        "touch /planted || echo root-refused",
        "echo scratch > /tmp/scratch.txt && echo tmp-private",
      ].join("; "),
    );
    expect(result.stdout.trim().split("\n")).toEqual([
      "inside-ok",
      "outside-refused",
      "usr-refused",
      "root-refused",
      "tmp-private",
    ]);
    expect(await readFile(path.join(root, "inside.txt"), "utf8")).toBe("kept\n");
    expect((await readdir(outside)).sort()).toEqual(["secret.txt"]);
  });

  it("cannot see another workspace, the database socket or /etc/shadow", async () => {
    const result = await run(
      [
        `cat ${outside}/secret.txt || echo no-sibling`,
        `ls ${base} || echo no-base`,
        "ls /run/postgresql /var/run/postgresql || echo no-socket",
        "cat /etc/shadow || echo no-shadow",
        "ls /root /home || echo no-homes",
      ].join("; "),
    );
    expect(result.stdout).not.toContain("other-session-secret");
    expect(result.stdout.trim().split("\n")).toEqual([
      "no-sibling",
      "workspace",
      "no-socket",
      "no-shadow",
      "no-homes",
    ]);
  });

  describe("network", () => {
    let server: Server;
    let port: number;
    beforeEach(async () => {
      server = createServer((socket) => socket.end("hello from the host\n"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as { port: number }).port;
    });
    afterEach(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    const connect = () => `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && head -n 1 <&3' || echo refused`;

    it("is cut off by default: the server's ports are unreachable", async () => {
      const result = await run(connect());
      expect(result.stdout).toBe("refused\n");
    });

    it("is shared with PARLEY_SHELL_NETWORK=on", async () => {
      const result = await run(connect(), { kind: "bubblewrap", network: true });
      expect(result.stdout).toBe("hello from the host\n");
    });
  });

  it("caps CPU time, memory and file size", async () => {
    const result = await run("ulimit -t; ulimit -v; ulimit -f");
    expect(result.stdout).toBe(`120\n${4 * 1024 * 1024}\n${(1024 * 1024 * 1024) / 512}\n`);
  });

  it("drops every capability", async () => {
    const result = await run("grep CapEff /proc/self/status");
    expect(result.stdout).toBe("CapEff:\t0000000000000000\n");
  });
});

describe("the shell tool's description", () => {
  it("tells the model what the sandbox allows", () => {
    expect(createShellTool({ sandbox: { kind: "bubblewrap", network: false } }).description).toBe(
      "Run a shell command (/bin/sh -c) in the workspace and return its exit code and output (each stream capped at 64 KiB). Asks the user for approval first. It runs in a sandbox: only the workspace is writable (and a private, empty /tmp), without network access.",
    );
    expect(createShellTool({ sandbox: { kind: "bubblewrap", network: true } }).description).toMatch(
      /It runs in a sandbox: only the workspace is writable \(and a private, empty \/tmp\)\.$/,
    );
    expect(createShellTool({ sandbox: { kind: "unsandboxed" } }).description).toBe(SHELL_DESCRIPTION);
  });
});

describe.each([
  { label: "sandboxed", sandbox: { kind: "bubblewrap", network: false } as ShellSandbox },
  { label: "unsandboxed", sandbox: { kind: "unsandboxed" } as ShellSandbox },
])("output bytes ($label)", ({ sandbox }) => {
  it("replaces NUL and invalid UTF-8 and says so in a note", async () => {
    const result = await run("printf 'a\\000b\\377c'; printf 'e\\000' >&2", sandbox);
    expect(result.stdout).toBe("a\u2400b\uFFFDc");
    expect(result.stderr).toBe("e\u2400");
    expect(result.note).toBe(
      "Binary output replaced (stdout: 1 NUL byte shown as \u2400, 1 invalid UTF-8 sequence shown as \uFFFD; stderr: 1 NUL byte shown as \u2400).",
    );
  });

  it("adds no note to text output", async () => {
    const result = await run("echo héllo", sandbox);
    expect(result).toEqual({
      exit_code: 0,
      signal: null,
      stdout: "héllo\n",
      stderr: "",
      timed_out: false,
      truncated: false,
    });
  });
});
