import { lstat, mkdir, realpath } from "node:fs/promises";
import path from "node:path";
import type { ToolCallContext, WorkspaceRef } from "@parley/session-core";

/**
 * A workspace path that failed confinement or lookup. Thrown from a tool's `execute`, so the runtime
 * fails the tool with this message (the model sees it as a tool error); nothing was touched.
 */
export class WorkspacePathError extends Error {
  override readonly name = "WorkspacePathError";
}

/** A path inside the workspace: `real` has every existing component resolved (no symlinks). */
export interface ConfinedPath {
  /** The path as the model should see it: relative to the workspace root, `/`-separated, `.` for the root. */
  relative: string;
  /** Absolute path to operate on. */
  real: string;
  /** Whether the target exists (for writes: false means it will be created). */
  exists: boolean;
}

/** The workspace of the running tool call, or a clear error when the runtime gave none. */
export function requireWorkspace(context: ToolCallContext): WorkspaceRef {
  if (context.workspace === undefined) {
    throw new WorkspacePathError(
      `${context.tool_name} needs a workspace, but this session has none (the runtime was built without a workspace resolver)`,
    );
  }
  return context.workspace;
}

/**
 * The real path of the workspace root. A per-session root is created on first use; a missing root
 * is never an escape, so creating it is safe.
 */
export async function realWorkspaceRoot(workspace: WorkspaceRef): Promise<string> {
  await mkdir(workspace.root, { recursive: true });
  return realpath(workspace.root);
}

/**
 * Resolves `requested` (relative to the workspace) to a path that provably stays inside it.
 *
 * Refused: absolute paths, NUL bytes, `..` that leaves the root, and any symbolic link (in the target
 * or in a parent) whose real target lies outside the root or does not exist. For a target that does
 * not exist yet, the nearest existing ancestor's real path is checked, and no component between it
 * and the target exists, so a write lands inside the root.
 */
export async function confinePath(root: string, requested: string): Promise<ConfinedPath> {
  if (requested.includes("\0")) throw new WorkspacePathError("Path contains a NUL byte");
  if (path.isAbsolute(requested)) {
    throw new WorkspacePathError(
      `Path must be relative to the workspace, got an absolute path: ${requested}`,
    );
  }
  const lexical = path.resolve(root, requested);
  if (!isInside(root, lexical)) throw new WorkspacePathError(`Path escapes the workspace: ${requested}`);

  const missing: string[] = [];
  let candidate = lexical;
  for (;;) {
    const real = await realpathOrMissing(candidate, requested);
    if (real !== null) {
      if (!isInside(root, real)) {
        throw new WorkspacePathError(`Path escapes the workspace through a symbolic link: ${requested}`);
      }
      const resolved = path.join(real, ...missing);
      return { relative: toRelative(root, lexical), real: resolved, exists: missing.length === 0 };
    }
    if (await existsWithoutFollowing(candidate)) {
      throw new WorkspacePathError(`Path goes through a broken symbolic link: ${requested}`);
    }
    missing.unshift(path.basename(candidate));
    candidate = path.dirname(candidate);
  }
}

/** True when `target` is `root` or below it. Both must be absolute and normalised. */
export function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** `/`-separated path relative to the root, `.` for the root itself. */
export function toRelative(root: string, target: string): string {
  const relative = path.relative(root, target);
  return relative === "" ? "." : relative.split(path.sep).join("/");
}

async function realpathOrMissing(candidate: string, requested: string): Promise<string | null> {
  try {
    return await realpath(candidate);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") return null;
    if (code === "ENOTDIR")
      throw new WorkspacePathError(`A parent of the path is not a directory: ${requested}`);
    if (code === "ELOOP") throw new WorkspacePathError(`Too many symbolic links in path: ${requested}`);
    throw error;
  }
}

async function existsWithoutFollowing(candidate: string): Promise<boolean> {
  try {
    await lstat(candidate);
    return true;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return false;
    throw error;
  }
}

/** The `code` of a Node system error (`ENOENT`, …), if any. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return undefined;
}
