import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import path from "node:path";

/**
 * Every entry below `directory` (not following symbolic links) with its kind and content, so a test
 * can assert that a refused operation touched nothing.
 */
export async function snapshotDirectory(directory: string): Promise<Record<string, string>> {
  const snapshot: Record<string, string> = {};
  const visit = async (current: string): Promise<void> => {
    const names = (await readdir(current)).sort();
    for (const name of names) {
      const absolute = path.join(current, name);
      const relative = path.relative(directory, absolute);
      const stats = await lstat(absolute);
      if (stats.isSymbolicLink()) snapshot[relative] = `link -> ${await readlink(absolute)}`;
      else if (stats.isDirectory()) {
        snapshot[relative] = "dir";
        await visit(absolute);
      } else snapshot[relative] = `file: ${await readFile(absolute, "utf8")}`;
    }
  };
  await visit(directory);
  return snapshot;
}
