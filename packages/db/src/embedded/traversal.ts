import { stat } from "node:fs/promises";
import path from "node:path";

/** A system user as file permissions see it. */
export interface PosixIdentity {
  uid: number;
  gid: number;
}

/**
 * Whether `identity` may traverse every directory from `/` down to `target` (inclusive), by the
 * owner/group/other execute bits (ACLs aside). As root the embedded server runs as `postgres`,
 * which must reach its binaries and data: a clone under a `0700` home fails this.
 */
export async function canTraverse(identity: PosixIdentity, target: string): Promise<boolean> {
  let current = path.resolve(target);
  for (;;) {
    const info = await stat(current).catch(() => null);
    if (info !== null) {
      const bit = info.uid === identity.uid ? 0o100 : info.gid === identity.gid ? 0o010 : 0o001;
      if ((info.mode & bit) === 0) return false;
    }
    const parent = path.dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}
