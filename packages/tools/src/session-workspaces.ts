import { statSync } from "node:fs";
import path from "node:path";
import { ParleyError, type WorkspaceRef } from "@parley/session-core";

/** Default of `PARLEY_WORKSPACE_ROOT`, relative to the server's working directory. */
export const DEFAULT_WORKSPACE_ROOT = ".parley/workspaces";

/**
 * Where sessions may work (docs/behaviour.md#workspaces-and-tools): operator-named workspaces chosen at session creation, and
 * a root under which every session without one gets its own `<root>/<session_id>/` directory.
 * Clients only ever name a `workspace_id`; paths come from the operator.
 */
export interface WorkspaceConfig {
  /** Absolute paths by workspace id, in the order the operator listed them. */
  named: ReadonlyMap<string, string>;
  /**
   * The users (by name) a named workspace is limited to (`id[alice+bob]=path`); a workspace missing
   * here is open to every user. Admins may use every workspace.
   */
  members?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Absolute directory holding the per-session workspaces. */
  session_root: string;
}

/** A `PARLEY_WORKSPACES` / `PARLEY_WORKSPACE_ROOT` value the server cannot start with. */
export class WorkspaceConfigError extends Error {
  override readonly name = "WorkspaceConfigError";
}

const WORKSPACE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** `id` or `id[user+user…]`; user names as `admin.users.create` allows them (no `+ [ ] = ,`). */
const WORKSPACE_KEY_PATTERN = /^([^[\]]*)(?:\[([^[\]]*)\])?$/;
const USER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.@-]*$/;

/** Who asks to see or use a workspace. */
export interface WorkspaceUser {
  name: string;
  role: "member" | "admin";
}

/**
 * Parses the workspace settings. `PARLEY_WORKSPACES` is `id=path` pairs separated by commas
 * (`project=/srv/repo,docs=/srv/docs`); relative paths are taken from `base_dir`. An id may carry
 * the users it is limited to in brackets, joined by `+`: `project[alice+bob]=/srv/repo` (neither
 * ids nor user names can hold `[`, `]`, `+` or `=`, so the form is unambiguous; the path is
 * everything after the first `=`). Each named path must be an existing directory: a typo should
 * stop the server at startup, not fail tools later.
 */
export function parseWorkspaceConfig(
  env: { PARLEY_WORKSPACES?: string | undefined; PARLEY_WORKSPACE_ROOT?: string | undefined },
  base_dir: string,
): WorkspaceConfig {
  const named = new Map<string, string>();
  const members = new Map<string, ReadonlySet<string>>();
  for (const entry of (env.PARLEY_WORKSPACES ?? "").split(",")) {
    const pair = entry.trim();
    if (pair === "") continue;
    const separator = pair.indexOf("=");
    const key = separator < 0 ? null : WORKSPACE_KEY_PATTERN.exec(pair.slice(0, separator).trim());
    const id = key?.[1]?.trim() ?? "";
    const rawPath = separator < 0 ? "" : pair.slice(separator + 1).trim();
    if (!WORKSPACE_ID_PATTERN.test(id) || rawPath === "") {
      throw new WorkspaceConfigError(
        `PARLEY_WORKSPACES: expected id=path pairs (or id[user+user]=path) separated by commas (id: letters, digits, ".", "_", "-"), got "${pair}"`,
      );
    }
    const userList = key?.[2];
    if (userList !== undefined) {
      const users = userList.split("+").map((name) => name.trim());
      const invalid = users.find((name) => !USER_NAME_PATTERN.test(name));
      if (invalid !== undefined) {
        throw new WorkspaceConfigError(
          `PARLEY_WORKSPACES: workspace "${id}" lists an invalid user name "${invalid}" (users are joined by "+": ${id}[alice+bob]=path)`,
        );
      }
      members.set(id, new Set(users));
    }
    if (named.has(id))
      throw new WorkspaceConfigError(`PARLEY_WORKSPACES: workspace id "${id}" is listed twice`);
    const absolute = path.resolve(base_dir, rawPath);
    if (!isDirectory(absolute)) {
      throw new WorkspaceConfigError(
        `PARLEY_WORKSPACES: workspace "${id}" path is not a directory: ${absolute}`,
      );
    }
    named.set(id, absolute);
  }
  const rootSetting = env.PARLEY_WORKSPACE_ROOT?.trim() || DEFAULT_WORKSPACE_ROOT;
  return { named, members, session_root: path.resolve(base_dir, rootSetting) };
}

/** Whether `user` may see and use the named workspace: admins always, members when listed or when it lists no one. */
export function mayUseWorkspace(config: WorkspaceConfig, workspace_id: string, user: WorkspaceUser): boolean {
  if (!config.named.has(workspace_id)) return false;
  if (user.role === "admin") return true;
  const allowed = config.members?.get(workspace_id);
  return allowed === undefined || allowed.has(user.name);
}

/**
 * The operator-configured workspaces, as `workspace.list` returns them: with a `user`, only those
 * that user may use.
 */
export function listWorkspaces(
  config: WorkspaceConfig,
  user?: WorkspaceUser,
): Array<{ workspace_id: string }> {
  return [...config.named.keys()]
    .filter((workspace_id) => user === undefined || mayUseWorkspace(config, workspace_id, user))
    .map((workspace_id) => ({ workspace_id }));
}

/**
 * Checks a client's `workspace_id` before a session is created with it. With a `user`, a workspace
 * that user may not use is refused exactly like an unknown one (a member does not learn that it
 * exists), and the message lists only the workspaces they may use.
 * @throws ParleyError `invalid_input` when no workspace (usable by `user`) has that id.
 */
export function assertKnownWorkspace(
  config: WorkspaceConfig,
  workspace_id: string,
  user?: WorkspaceUser,
): void {
  const usable = user === undefined || mayUseWorkspace(config, workspace_id, user);
  if (!config.named.has(workspace_id) || !usable) {
    const known = listWorkspaces(config, user).map((workspace) => workspace.workspace_id);
    throw new ParleyError(
      "invalid_input",
      `Unknown workspace_id: ${workspace_id} (configured: ${known.length === 0 ? "none" : known.join(", ")})`,
    );
  }
}

/**
 * A session's workspace: its named one, or `<session_root>/<session_id>/` (created by the tools on
 * first use). Fits `SessionRuntimeOptions.resolveWorkspace`.
 * @throws ParleyError `invalid_input` for an unknown `workspace_id`, or a session id that is not a
 * single safe path segment.
 */
export function resolveSessionWorkspace(
  config: WorkspaceConfig,
  session: { session_id: string; workspace_id: string | null },
): WorkspaceRef {
  if (session.workspace_id !== null) {
    assertKnownWorkspace(config, session.workspace_id);
    return { workspace_id: session.workspace_id, root: config.named.get(session.workspace_id) as string };
  }
  const segment = session.session_id;
  if (segment === "" || segment === "." || segment === ".." || /[/\\\0]/.test(segment)) {
    throw new ParleyError("invalid_input", `Session id cannot name a workspace directory: ${segment}`);
  }
  return { workspace_id: null, root: path.join(config.session_root, segment) };
}

/** `resolveSessionWorkspace` bound to a config, for `SessionRuntimeOptions.resolveWorkspace`. */
export function createWorkspaceResolver(
  config: WorkspaceConfig,
): (session: { session_id: string; workspace_id: string | null }) => WorkspaceRef {
  return (session) => resolveSessionWorkspace(config, session);
}

function isDirectory(candidate: string): boolean {
  try {
    return statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}
