import type { Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";

/**
 * The bytes of regular files under `roots` (symbolic links not followed, each file counted by its
 * size) once they exceed `limit`, or null when they do not. The walk stops as soon as the limit is
 * passed, so a full workspace costs no more than the files read up to that point. A root that does
 * not exist yet (a session that never ran a tool) holds nothing.
 */
export async function directoryBytesBeyond(roots: string[], limit: number): Promise<number | null> {
  let total = 0;
  const pending = [...roots];
  for (let directory = pending.pop(); directory !== undefined; directory = pending.pop()) {
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      continue; // Gone or never made.
    }
    for (const entry of entries) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile()) {
        total += (await lstat(full).catch(() => ({ size: 0 }))).size;
        if (total > limit) return total;
      }
    }
  }
  return null;
}
