import { readFile, stat } from "node:fs/promises";
import { APPROVAL_PREVIOUS_CONTENT_MAX_BYTES, type ApprovalTarget } from "@parley/session-core";
import type { ConfinedPath } from "./workspace-path.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * What a file tool's approval shows about its target, read when the approval is asked: whether the
 * file exists, its size, and (for a UTF-8 file up to the limit) its content, so the card can show
 * "new file" or "overwrites N bytes" and a diff. Only for people: the tool checks the file again
 * after the answer, since it may change while the approval waits.
 */
export async function describeApprovalTarget(
  target: ConfinedPath,
  options: { withContent: boolean },
): Promise<ApprovalTarget> {
  if (!target.exists) return { path: target.relative, exists: false };
  const { size } = await stat(target.real);
  if (!options.withContent || size > APPROVAL_PREVIOUS_CONTENT_MAX_BYTES) {
    return { path: target.relative, exists: true, size_bytes: size };
  }
  const bytes = await readFile(target.real);
  try {
    return { path: target.relative, exists: true, size_bytes: size, previous_content: utf8.decode(bytes) };
  } catch {
    // Not UTF-8 text: the size is all a person can use.
    return { path: target.relative, exists: true, size_bytes: size };
  }
}
