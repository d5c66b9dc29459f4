import { accessSync, constants } from "node:fs";
import path from "node:path";

/**
 * How the `shell` tool isolates a command (docs/behaviour.md#workspaces-and-tools).
 * - `bubblewrap`: a `bwrap` sandbox whose only writable path is the workspace (the default).
 * - `unsandboxed`: the operator's explicit `PARLEY_SANDBOX=off`, for trusted single-user setups; the
 *   command runs as the server's user with a minimal environment and the same resource caps.
 */
export type ShellSandbox =
  | {
      kind: "bubblewrap";
      /** Absolute path of `bwrap`; looked up on the server's `PATH` when omitted. */
      bwrap_path?: string;
      /** `PARLEY_SHELL_NETWORK=on`: share the server's network (and so reach its database port). */
      network: boolean;
    }
  | { kind: "unsandboxed" };

/** The sandbox a tool gets when the caller names none: bubblewrap, no network. */
export const DEFAULT_SHELL_SANDBOX: ShellSandbox = { kind: "bubblewrap", network: false };

/** `PATH` inside the sandbox: only the system directories that are mounted there. */
export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** `LANG` of every shell command. */
export const SHELL_LANG = "C.UTF-8";

/**
 * System directories mounted read-only. `/bin`, `/lib`… are symbolic links into `/usr` on merged-usr
 * systems; a bind mount follows them, so the same list fits both layouts. `--ro-bind-try` skips the
 * ones a system lacks.
 */
const SYSTEM_DIRECTORIES = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/**
 * The pieces of `/etc` ordinary commands need (dynamic linker cache, user names, `update-alternatives`
 * links such as `awk`, time zone, name resolution and CA certificates for when the network is on).
 * Not `/etc` whole: it holds `shadow`, service credentials and database configuration.
 */
const ETC_ENTRIES = [
  "alternatives",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "passwd",
  "group",
  "nsswitch.conf",
  "localtime",
  "timezone",
  "hosts",
  "host.conf",
  "resolv.conf",
  "protocols",
  "services",
  "ssl",
  "ca-certificates",
  "ca-certificates.conf",
  "profile",
  "bash.bashrc",
  "inputrc",
  "terminfo",
  "mime.types",
  "magic",
  "gitconfig",
];

/** The environment a command sees, and the one `bwrap` itself is started with (its `/proc/1/environ` is visible inside). */
export function sandboxEnvironment(workspace_root: string): Record<string, string> {
  return { PATH: SANDBOX_PATH, HOME: workspace_root, LANG: SHELL_LANG };
}

/**
 * `bwrap`'s arguments up to (not including) the command: a fresh root holding only the read-only
 * system directories, a private `/proc` of a new PID namespace, a minimal `/dev`, a private `/tmp`,
 * and the workspace read-write at its real path. Everything else the server can reach — other
 * sessions' workspaces, `.parley/`, the repository, `/run` with the database socket, `/home`,
 * `/root` — is absent. No capabilities, a new session (no terminal injection), no network unless
 * asked, and the sandbox dies with the process that started it.
 */
export function bubblewrapArguments(options: {
  workspace_root: string;
  cwd: string;
  network: boolean;
}): string[] {
  const { workspace_root, cwd } = options;
  const args = [
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(options.network ? [] : ["--unshare-net"]),
    "--cap-drop",
    "ALL",
    "--clearenv",
  ];
  for (const [name, value] of Object.entries(sandboxEnvironment(workspace_root))) {
    args.push("--setenv", name, value);
  }
  for (const directory of SYSTEM_DIRECTORIES) args.push("--ro-bind-try", directory, directory);
  for (const entry of ETC_ENTRIES) {
    const file = path.posix.join("/etc", entry);
    args.push("--ro-bind-try", file, file);
  }
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  // After /tmp: a workspace under /tmp is mounted on top of the private one.
  args.push("--bind", workspace_root, workspace_root);
  // The new root itself (where the mount points were made) becomes read-only too.
  args.push("--remount-ro", "/");
  args.push("--chdir", cwd);
  return args;
}

/** The first executable `bwrap` on `search_path` (a `PATH` value); null when there is none. */
export function locateBubblewrap(search_path: string | undefined): string | null {
  const directories = (search_path ?? "").split(path.delimiter).filter((entry) => path.isAbsolute(entry));
  for (const directory of directories) {
    const candidate = path.join(directory, "bwrap");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}
