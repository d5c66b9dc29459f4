import { constants } from "node:fs";
import { type FileHandle, mkdir, open } from "node:fs/promises";
import path from "node:path";
import { type ConfinedPath, errorCode, WorkspacePathError } from "./workspace-path.js";

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * The path that names `name` inside the directory `directory` holds open. Node has no `openat`;
 * Linux resolves `/proc/self/fd/<fd>` to the very directory the descriptor refers to, wherever it
 * is now, so a lookup through it cannot be redirected by renaming or replacing a parent.
 */
export function pathInDirectory(directory: FileHandle, name: string): string {
  return `/proc/self/fd/${directory.fd}/${name}`;
}

/**
 * Opens the directory at `real` (a path `confinePath` resolved, inside `root`) by walking down from
 * the root one component at a time with `O_NOFOLLOW`: a symbolic link that appeared on the way after
 * the check is refused instead of followed, so the descriptor is provably inside the workspace.
 * `create` makes missing directories (each made inside the directory already held open).
 */
export async function openConfinedDirectory(
  root: string,
  real: string,
  options: { create: boolean; relative: string },
): Promise<FileHandle> {
  const components = path
    .relative(root, real)
    .split(path.sep)
    .filter((part) => part !== "");
  if (components.includes(".."))
    throw new WorkspacePathError(`Path escapes the workspace: ${options.relative}`);
  let current = await open(root, DIRECTORY_FLAGS).catch((error: unknown) => {
    throw changedWhileRunning(error, options.relative);
  });
  try {
    for (const component of components) {
      const next = await openChild(current, component, options);
      await current.close();
      current = next;
    }
    return current;
  } catch (error) {
    await current.close();
    throw error;
  }
}

async function openChild(
  parent: FileHandle,
  name: string,
  options: { create: boolean; relative: string },
): Promise<FileHandle> {
  const child = pathInDirectory(parent, name);
  try {
    return await open(child, DIRECTORY_FLAGS);
  } catch (error) {
    if (!(options.create && errorCode(error) === "ENOENT"))
      throw changedWhileRunning(error, options.relative);
  }
  // mkdir never follows a symbolic link at its last component: one put there meanwhile is EEXIST.
  await mkdir(child).catch((error: unknown) => {
    if (errorCode(error) !== "EEXIST") throw error;
  });
  return open(child, DIRECTORY_FLAGS).catch((error: unknown) => {
    throw changedWhileRunning(error, options.relative);
  });
}

/**
 * Opens the file `target` names, once, through its directory held open (see
 * `openConfinedDirectory`) and with `O_NOFOLLOW` on the file itself, then checks the descriptor is a
 * regular file. The caller reads or writes that descriptor only, so nothing swapped into the path
 * after `confinePath` checked it can redirect the operation. `O_NONBLOCK` keeps a FIFO from hanging
 * the open; it changes nothing for regular files.
 */
export async function openConfinedFile(
  root: string,
  target: ConfinedPath,
  options: { write: boolean },
): Promise<FileHandle> {
  const directory = await openConfinedDirectory(root, path.dirname(target.real), {
    create: options.write,
    relative: target.relative,
  });
  let file: FileHandle;
  try {
    const flags =
      (options.write ? constants.O_WRONLY | constants.O_CREAT : constants.O_RDONLY) |
      constants.O_NOFOLLOW |
      constants.O_NONBLOCK;
    file = await open(pathInDirectory(directory, path.basename(target.real)), flags, 0o644).catch(
      (error: unknown) => {
        if (errorCode(error) === "ENOENT") throw new WorkspacePathError(`File not found: ${target.relative}`);
        // EISDIR: a directory opened for writing; ENXIO: a FIFO without a reader opened for writing.
        const code = errorCode(error);
        if (code === "EISDIR" || code === "ENXIO") throw notAFile(target.relative, options.write);
        throw changedWhileRunning(error, target.relative);
      },
    );
  } finally {
    await directory.close();
  }
  try {
    if (!(await file.stat()).isFile()) throw notAFile(target.relative, options.write);
    return file;
  } catch (error) {
    await file.close();
    throw error;
  }
}

/**
 * A symbolic link (ELOOP), a file where a directory was (ENOTDIR) or a directory gone (ENOENT),
 * found after the check.
 */
function changedWhileRunning(error: unknown, relative: string): unknown {
  const code = errorCode(error);
  if (code === "ENOENT") return new WorkspacePathError(`Path no longer exists: ${relative}`);
  if (code === "ELOOP" || code === "ENOTDIR") {
    return new WorkspacePathError(
      `Path changed into a symbolic link or file while the tool ran: ${relative}`,
    );
  }
  return error;
}

function notAFile(relative: string, write: boolean): WorkspacePathError {
  return new WorkspacePathError(`${write ? "Not a regular file" : "Not a file"}: ${relative}`);
}
