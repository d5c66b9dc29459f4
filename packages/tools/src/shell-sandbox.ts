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
      /**
       * The cgroup under which each command gets its own pids cgroup (`pids-cgroup.ts`); absent or
       * null: only RLIMIT_NPROC limits processes, which the kernel does not enforce for root.
       */
      pids_cgroup_parent?: string | null;
    }
  | { kind: "unsandboxed" };

/** The sandbox a tool gets when the caller names none: bubblewrap, no network. */
export const DEFAULT_SHELL_SANDBOX: ShellSandbox = { kind: "bubblewrap", network: false };

/** `PATH` inside the sandbox: only the system directories that are mounted there. */
export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** `LANG` of every shell command. */
export const SHELL_LANG = "C.UTF-8";

/**
 * System directories mounted read-only: programs and their libraries, not `/usr` whole. Left out:
 * `/usr/local/etc` and `/usr/etc` (operator configuration such as a global `npmrc` with registry
 * tokens), `/usr/src`, `/usr/include`, `/usr/local/share`, `/usr/games`, and `/usr/share` beyond the
 * data that shells, git, perl, awk, `file` and TLS read. `/bin`, `/lib`… are symbolic links into
 * `/usr` on merged-usr systems; a bind mount follows them, so the same list fits both layouts.
 * `--ro-bind-try` skips the ones a system lacks.
 */
const SYSTEM_DIRECTORIES = [
  "/usr/bin",
  "/usr/sbin",
  "/usr/lib",
  "/usr/lib32",
  "/usr/lib64",
  "/usr/libx32",
  "/usr/libexec",
  "/usr/local/bin",
  "/usr/local/lib",
  ...[
    "ca-certificates",
    "zoneinfo",
    "terminfo",
    "git-core",
    "perl",
    "perl5",
    "misc",
    "file",
    "awk",
    "nodejs",
  ].map((entry) => `/usr/share/${entry}`),
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
];

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
  // The public certificates only: never `/etc/ssl/private` (TLS keys of the host's services).
  "ssl/certs",
  "ssl/openssl.cnf",
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
 * `/root` — is absent; the workspace's `.git/hooks`, `.git/config` are read-only and its `.parley/`
 * is empty. No capabilities, a new session (no terminal injection), no network unless
 * asked, and the sandbox dies with the process that started it.
 */
export function bubblewrapArguments(options: {
  workspace_root: string;
  cwd: string;
  network: boolean;
  /** Size of the private `/tmp` (a tmpfs lives in memory). */
  tmp_bytes: number;
  /** Workspace paths mounted read-only from a descriptor passed to bwrap (`workspace-protected-paths.ts`). */
  read_only?: { fd: number; path: string }[];
  /** Workspace directories hidden under an empty read-only tmpfs. */
  hidden?: string[];
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
  args.push("--proc", "/proc", "--dev", "/dev", "--size", String(options.tmp_bytes), "--tmpfs", "/tmp");
  // After /tmp: a workspace under /tmp is mounted on top of the private one.
  args.push("--bind", workspace_root, workspace_root);
  // After the workspace: these cover parts of it.
  for (const { fd, path: target } of options.read_only ?? []) args.push("--ro-bind-fd", String(fd), target);
  for (const directory of options.hidden ?? []) args.push("--tmpfs", directory, "--remount-ro", directory);
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
