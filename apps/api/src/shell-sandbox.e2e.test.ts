import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ParleySession } from "@parley/sdk";
import type { AssistantMessage } from "@parley/session-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "./testing/api-process.js";
import { type E2eEnvironment, type E2eUser, startE2eEnvironment } from "./testing/e2e-environment.js";
import { runShellThroughDemoModel, type ShellOutput } from "./testing/shell-output.js";

/**
 * A member's escape attempts through the `shell` tool of a real API process
 * (docs/behaviour.md#workspaces-and-tools), each proving nothing leaked. The API process holds a
 * secret in its environment (as it would hold `DATABASE_URL` with a password and provider keys).
 * Every attempt also runs against an API started with `PARLEY_SANDBOX=off`, where it must succeed:
 * that shows each check would catch the leak.
 */
const SECRET = "parley-e2e-secret-4b1d7c";

interface Deployment {
  environment: E2eEnvironment;
  member: E2eUser;
  /** Runs one command through the demo model's "run …" in a fresh always-allow session. */
  run(command: string): Promise<{ session: ParleySession; output: ShellOutput }>;
}

async function startDeployment(sandbox: "on" | "off", env: Record<string, string> = {}): Promise<Deployment> {
  const environment = await startE2eEnvironment({
    env: { PARLEY_SANDBOX: sandbox, PARLEY_TEST_SECRET: SECRET, OPENAI_API_KEY: SECRET, ...env },
  });
  const member = await environment.createMember(`mallory-${sandbox}`);
  const client = member.client();
  return {
    environment,
    member,
    async run(command) {
      return runShellThroughDemoModel(client, command);
    },
  };
}

const READ_ENVIRONMENTS = "cat /proc/$PPID/environ; echo; cat /proc/1/environ; echo; env";
/** A TCP connect to the test database the API itself uses. */
function databaseConnect(deployment: Deployment): string {
  const url = new URL(deployment.environment.database.url);
  const host = url.hostname === "localhost" ? "127.0.0.1" : url.hostname;
  return `bash -c 'exec 3<>/dev/tcp/${host}/${url.port || "5432"} && echo connected' 2>/dev/null || echo refused`;
}
const LIST_PROCESSES = "ps -e -o args=";
/** What `ps` shows of the API process: the e2e API processes run the build (`apiEntryArgs`). */
const API_ENTRY = "apps/api/dist/main.js";
/** The API's working directory is the repository (with `.parley/`); Postgres keeps its sockets in one of the others. */
const LOOK_AROUND = `ls -d ${REPO_ROOT}/apps /var/run/postgresql /run/postgresql /tmp/.s.PGSQL.* 2>/dev/null; echo end`;

let sandboxed: Deployment;
let unsandboxed: Deployment;

beforeAll(async () => {
  sandboxed = await startDeployment("on");
  unsandboxed = await startDeployment("off");
});

afterAll(async () => {
  await sandboxed?.environment.close();
  await unsandboxed?.environment.close();
});

describe("shell escape attempts, sandboxed (the default)", () => {
  it("the server says at startup that shell is sandboxed", () => {
    expect(sandboxed.environment.api.output()).toMatch(
      /"msg":"shell tool sandboxed with \/[^"]*bwrap \(network off; pids limit: pids cgroup under \/[^"]+\)"/,
    );
  });

  it("/proc/$PPID/environ, /proc/1/environ and env hold PATH, HOME and LANG only", async () => {
    const { session, output } = await sandboxed.run(READ_ENVIRONMENTS);
    expect(output.stdout).not.toContain(SECRET);
    expect(output.stdout).not.toContain("DATABASE_URL");
    const workspace = path.join(sandboxed.environment.api.workspace_root, session.id);
    const names = new Set(
      output.stdout
        .split(/[\n\u2400]/)
        .filter((line) => line.includes("="))
        .map((line) => line.slice(0, line.indexOf("="))),
    );
    expect([...names].sort()).toEqual(["HOME", "LANG", "PATH", "PWD"]);
    expect(output.stdout).toContain(`HOME=${workspace}`);
    // environ is NUL-separated: stored as ␀, with a note, never failing the commit.
    expect(output.note).toMatch(/^Binary output replaced \(stdout: \d+ NUL bytes shown as \u2400\)\.$/);
  });

  it("writing outside the workspace lands nowhere", async () => {
    // Beside the session directories: inside the sandbox that path exists only on its private,
    // throw-away /tmp (the workspace root is under the system temp directory here).
    const planted = path.join(sandboxed.environment.api.workspace_root, "planted.txt");
    const { output } = await sandboxed.run(
      `echo pwned > ${planted}; echo pwned > /usr/local/planted.txt || echo system-read-only`,
    );
    expect(output.stdout).toBe("system-read-only\n");
    expect(existsSync(planted)).toBe(false);
    expect(existsSync("/usr/local/planted.txt")).toBe(false);
  });

  it("another session's workspace is absent, even by absolute path", async () => {
    const { session: victim } = await sandboxed.run("echo victim-data-91 > private.txt");
    const victimFile = path.join(sandboxed.environment.api.workspace_root, victim.id, "private.txt");
    expect(existsSync(victimFile)).toBe(true);
    const { output } = await sandboxed.run(`cat ${victimFile} || echo absent`);
    expect(output.stdout).toBe("absent\n");
  });

  it("the database port cannot be reached", async () => {
    const { output } = await sandboxed.run(databaseConnect(sandboxed));
    expect(output.stdout).toBe("refused\n");
  });

  it("the repository, .parley/ and the database sockets are absent", async () => {
    const { output } = await sandboxed.run(LOOK_AROUND);
    expect(output.stdout).toBe("end\n");
  });

  it("ps lists the sandbox only, not the API", async () => {
    const { output } = await sandboxed.run(LIST_PROCESSES);
    expect(output.stdout).not.toContain(API_ENTRY);
    // The programs (first words), not bwrap's arguments, which name /usr/share/nodejs.
    const programs = output.stdout
      .trim()
      .split("\n")
      .map((line) => line.trim().split(/\s+/)[0]);
    expect(programs.filter((program) => program?.endsWith("node"))).toEqual([]);
    expect(output.stdout.trim().split("\n")).toHaveLength(3); // bwrap, sh, ps
  });
});

describe("the same attempts with PARLEY_SANDBOX=off: each check catches the leak", () => {
  it("the server warns at startup that shell is unsandboxed", () => {
    expect(unsandboxed.environment.api.output()).toContain(
      "shell tool runs UNSANDBOXED (PARLEY_SANDBOX=off)",
    );
  });

  it("the API's environment, with its secret, is readable through /proc/$PPID/environ", async () => {
    const { output } = await unsandboxed.run(READ_ENVIRONMENTS);
    expect(output.stdout).toContain(`PARLEY_TEST_SECRET=${SECRET}`);
    expect(output.stdout).toContain("DATABASE_URL=");
  });

  it("a write outside the workspace lands", async () => {
    const planted = path.join(unsandboxed.environment.api.workspace_root, "planted.txt");
    const { output } = await unsandboxed.run(`echo pwned > ${planted} || echo refused`);
    expect(output.stdout).toBe("");
    expect(existsSync(planted)).toBe(true);
  });

  it("another session's file is readable by absolute path", async () => {
    const { session: victim } = await unsandboxed.run("echo victim-data-91 > private.txt");
    const victimFile = path.join(unsandboxed.environment.api.workspace_root, victim.id, "private.txt");
    const { output } = await unsandboxed.run(`cat ${victimFile} || echo absent`);
    expect(output.stdout).toBe("victim-data-91\n");
  });

  it("the database port is reachable", async () => {
    const { output } = await unsandboxed.run(databaseConnect(sandboxed));
    expect(output.stdout).toBe("connected\n");
  });

  it("the repository is there", async () => {
    const { output } = await unsandboxed.run(LOOK_AROUND);
    expect(output.stdout).toContain(`${REPO_ROOT}/apps\n`);
  });

  it("ps lists the API", async () => {
    const { output } = await unsandboxed.run(LIST_PROCESSES);
    expect(output.stdout).toContain(API_ENTRY);
  });
});

describe("without bubblewrap", () => {
  let missing: Deployment;
  let emptyPath: string;

  beforeAll(async () => {
    emptyPath = await mkdtemp(path.join(tmpdir(), "parley-no-bwrap-"));
    missing = await startDeployment("on", { PATH: emptyPath });
  });

  afterAll(async () => {
    await missing?.environment.close();
    await rm(emptyPath, { recursive: true, force: true });
  });

  it("the server says in one line why shell is not offered, and the model does not get it", async () => {
    const lines = missing.environment.api
      .output()
      .split("\n")
      .filter((line) => line.includes("shell tool"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      '"msg":"shell tool disabled: bubblewrap (bwrap) not found; install the bubblewrap package (Debian/Ubuntu: apt-get install bubblewrap), or set PARLEY_SANDBOX=off for a trusted single-user setup"',
    );
    const session = await missing.member.client().sessions.create({ approval_mode: "always-allow" });
    const { turn_id } = await session.prompt("run ls");
    const reply = "I would use the shell tool for that, but this agent does not have it.";
    expect(await waitForReply(session, turn_id, reply)).toBe(reply);
  });
});

/** The Turn's assistant text once it reads `expected` (streamed in pieces), or what it read by the deadline. */
async function waitForReply(session: ParleySession, turn_id: string, expected: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const page = await session.messages({ limit: 100 });
    const text = page.items
      .filter(
        (message): message is AssistantMessage => message.type === "assistant" && message.turn_id === turn_id,
      )
      .flatMap((message) => message.parts)
      .flatMap((part) => (part.type === "text" ? [part.text] : []))
      .join("");
    if (text === expected || Date.now() > deadline) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a sandboxed command when the API process dies", () => {
  let deployment: Deployment;

  beforeAll(async () => {
    deployment = await startDeployment("on");
  });

  afterAll(async () => {
    await deployment?.environment.close();
  });

  it("dies with it (--die-with-parent): nothing keeps running in the workspace", async () => {
    const session = await deployment.member.client().sessions.create({ approval_mode: "always-allow" });
    await session.prompt("run sleep 600");
    const workspace = path.join(deployment.environment.api.workspace_root, session.id);
    // Once the command itself runs: bwrap arms its parent-death signal while it sets the sandbox up.
    await waitForProcessesIn(workspace, (processes) => processes.includes("sleep 600"));
    deployment.environment.api.child.kill("SIGKILL");
    expect(await waitForProcessesIn(workspace, (processes) => processes.length === 0)).toEqual([]);
  });
});

/** The command lines of the processes working in `directory` (Linux `/proc`), once `until` holds for them. */
async function waitForProcessesIn(
  directory: string,
  until: (processes: string[]) => boolean,
): Promise<string[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const processes: string[] = [];
    for (const entry of await readdir("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const cwd = await readlink(path.join("/proc", entry, "cwd")).catch(() => "");
      if (cwd !== directory && !cwd.startsWith(`${directory}/`)) continue;
      const args = await readFile(path.join("/proc", entry, "cmdline"), "utf8").catch(() => "");
      processes.push(args.split("\0").join(" ").trim());
    }
    if (until(processes) || Date.now() > deadline) return processes;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
