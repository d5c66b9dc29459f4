import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";
import path from "node:path";
import { openConfinedDirectory, pathInDirectory } from "./confined-open.js";

/**
 * Paths of a workspace a sandboxed command must not change or read, opened for `bwrap` just before
 * it starts:
 * - `.git/hooks` and `.git/config` run code as whoever uses the repository next (a hook, or
 *   `core.fsmonitor` / `core.hooksPath` on a plain `git status`): mounted read-only over themselves.
 *   An existing `.git` directory without `hooks` gets an empty one (git's usual layout), so a
 *   command cannot create hooks there either.
 * - `.parley/` may hold the server's database files and credentials (a named workspace can be the
 *   directory the server runs in): hidden under an empty read-only tmpfs.
 *
 * Each is opened by descriptor, walking down from the workspace with `O_NOFOLLOW`, and bwrap mounts
 * the descriptor (`--ro-bind-fd`), never a path: a concurrent command in a shared workspace that
 * swaps `.git/hooks` for a symbolic link to `/etc` makes the open fail, instead of exposing the
 * host's `/etc` inside the sandbox. Something that is not a real directory or file is left alone:
 * whatever a link names lies outside the sandbox's view.
 */
export interface ProtectedWorkspacePaths {
  /** Descriptors bwrap binds read-only over the path they were opened at. */
  read_only: { handle: FileHandle; path: string }[];
  /** Directories hidden under an empty read-only tmpfs. */
  hidden: string[];
  close(): Promise<void>;
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export async function openProtectedWorkspacePaths(workspace_root: string): Promise<ProtectedWorkspacePaths> {
  const read_only: ProtectedWorkspacePaths["read_only"] = [];
  const close = async () => {
    await Promise.all(read_only.map(({ handle }) => handle.close().catch(() => undefined)));
  };
  try {
    const git = await openExisting(() =>
      openConfinedDirectory(workspace_root, path.join(workspace_root, ".git"), {
        create: false,
        relative: ".git",
      }),
    );
    if (git !== null) {
      try {
        const hooks = await openConfinedDirectory(
          workspace_root,
          path.join(workspace_root, ".git", "hooks"),
          {
            create: true,
            relative: ".git/hooks",
          },
        );
        read_only.push({ handle: hooks, path: path.join(workspace_root, ".git", "hooks") });
        const config = await openExisting(() => open(pathInDirectory(git, "config"), READ_FLAGS));
        if (config !== null) {
          if ((await config.stat()).isFile()) {
            read_only.push({ handle: config, path: path.join(workspace_root, ".git", "config") });
          } else {
            await config.close();
          }
        }
      } finally {
        await git.close();
      }
    }
    const parley = await openExisting(() =>
      openConfinedDirectory(workspace_root, path.join(workspace_root, ".parley"), {
        create: false,
        relative: ".parley",
      }),
    );
    const hidden: string[] = [];
    if (parley !== null) {
      await parley.close();
      hidden.push(path.join(workspace_root, ".parley"));
    }
    return { read_only, hidden, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The opened handle, or null when the path is absent or is not what was asked for (a link, a file). */
async function openExisting(opener: () => Promise<FileHandle>): Promise<FileHandle | null> {
  try {
    return await opener();
  } catch {
    return null;
  }
}
