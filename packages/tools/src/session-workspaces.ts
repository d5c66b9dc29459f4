import { statSync } from "node:fs";
import path from "node:path";
import { ParleyError, type WorkspaceRef } from "@parley/session-core";

/** Default of `PARLEY_WORKSPACE_ROOT`, relative to the server's working directory (DESIGN.md §9). */
export const DEFAULT_WORKSPACE_ROOT = ".parley/workspaces";

/**
 * Where sessions may work (DESIGN.md §9): operator-named workspaces chosen at session creation, and
 * a root under which every session without one gets its own `<root>/<session_id>/` directory.
 * Clients only ever name a `workspace_id`; paths come from the operator.
 */
export interface WorkspaceConfig {
  /** Absolute paths by workspace id, in the order the operator listed them. */
  named: ReadonlyMap<string, string>;
  /** Absolute directory holding the per-session workspaces. */
  session_root: string;
}

/** A `PARLEY_WORKSPACES` / `PARLEY_WORKSPACE_ROOT` value the server cannot start with. */
export class WorkspaceConfigError extends Error {
  override readonly name = "WorkspaceConfigError";
}

const WORKSPACE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Parses the workspace settings. `PARLEY_WORKSPACES` is `id=path` pairs separated by commas
 * (`project=/srv/repo,docs=/srv/docs`); relative paths are taken from `base_dir`. Each named path must
 * be an existing directory: a typo should stop the server at startup, not fail tools later.
 */
export function parseWorkspaceConfig(
  env: { PARLEY_WORKSPACES?: string | undefined; PARLEY_WORKSPACE_ROOT?: string | undefined },
  base_dir: string,
): WorkspaceConfig {
  const named = new Map<string, string>();
  for (const entry of (env.PARLEY_WORKSPACES ?? "").split(",")) {
    const pair = entry.trim();
    if (pair === "") continue;
    const separator = pair.indexOf("=");
    const id = separator < 0 ? "" : pair.slice(0, separator).trim();
    const rawPath = separator < 0 ? "" : pair.slice(separator + 1).trim();
    if (!WORKSPACE_ID_PATTERN.test(id) || rawPath === "") {
      throw new WorkspaceConfigError(
        `PARLEY_WORKSPACES: expected id=path pairs separated by commas (id: letters, digits, ".", "_", "-"), got "${pair}"`,
      );
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
  return { named, session_root: path.resolve(base_dir, rootSetting) };
}

/** The operator-configured workspaces, as `workspace.list` returns them. */
export function listWorkspaces(config: WorkspaceConfig): Array<{ workspace_id: string }> {
  return [...config.named.keys()].map((workspace_id) => ({ workspace_id }));
}

/**
 * Checks a client's `workspace_id` before a session is created with it.
 * @throws ParleyError `invalid_input` when no workspace has that id.
 */
export function assertKnownWorkspace(config: WorkspaceConfig, workspace_id: string): void {
  if (!config.named.has(workspace_id)) {
    const known = [...config.named.keys()];
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
