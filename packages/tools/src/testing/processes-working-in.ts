import { readdir, readlink } from "node:fs/promises";
import path from "node:path";

/** Pids of the processes whose working directory is `directory` or below it (Linux `/proc`). */
export async function processesWorkingIn(directory: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let cwd: string;
    try {
      cwd = await readlink(path.join("/proc", entry, "cwd"));
    } catch {
      continue; // Gone meanwhile, or not ours to inspect.
    }
    if (cwd === directory || cwd.startsWith(`${directory}/`)) found.push(Number(entry));
  }
  return found;
}
