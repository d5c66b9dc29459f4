import { rm, symlink } from "node:fs/promises";
import path from "node:path";

/**
 * Replaces `relative` inside the workspace `root` with a symbolic link to `target`: what a shell
 * command in a shared workspace can do between a tool's path check and its use of the path.
 */
export async function swapForLink(root: string, relative: string, target: string): Promise<void> {
  await rm(path.join(root, relative), { recursive: true, force: true });
  await symlink(target, path.join(root, relative));
}
