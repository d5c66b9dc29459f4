import { APPROVAL_PREVIOUS_CONTENT_MAX_BYTES, type ApprovalTarget } from "@parley/session-core";
import { openConfinedFile } from "./confined-open.js";
import { type ConfinedPath, errorCode, WorkspacePathError } from "./workspace-path.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * What a file tool's approval shows about its target, read when the approval is asked: whether the
 * file exists, its size, and (for a UTF-8 file up to the limit) its content, so the card can show
 * "new file" or "overwrites N bytes" and a diff. Only for people: the tool checks the file again
 * after the answer, since it may change while the approval waits.
 *
 * The file is opened exactly as the tools open it (`openConfinedFile`): walked from the root
 * without following a link, non-blocking, and read only if the descriptor is a regular file. A
 * target swapped after `confinePath` for a link out (say to `/proc/self/environ`), a FIFO or a
 * directory shows that it exists and nothing more; no read can follow it out or block.
 */
export async function describeApprovalTarget(
  root: string,
  target: ConfinedPath,
  options: { withContent: boolean },
): Promise<ApprovalTarget> {
  if (!target.exists) return { path: target.relative, exists: false };
  const handle = await openConfinedFile(root, target, { write: false }).catch((error: unknown) => {
    // Refused (a link, a FIFO, a directory, gone) or unreadable: the preview shows no more.
    if (error instanceof WorkspacePathError) return null;
    if (errorCode(error) === "EACCES" || errorCode(error) === "EPERM") return null;
    throw error;
  });
  if (handle === null) return { path: target.relative, exists: true };
  try {
    const { size } = await handle.stat();
    if (!options.withContent || size > APPROVAL_PREVIOUS_CONTENT_MAX_BYTES) {
      return { path: target.relative, exists: true, size_bytes: size };
    }
    // At most the size the descriptor had: a file growing meanwhile is not read past the cap.
    const buffer = new Uint8Array(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    try {
      const previous_content = utf8.decode(buffer.subarray(0, bytesRead));
      return { path: target.relative, exists: true, size_bytes: bytesRead, previous_content };
    } catch {
      // Not UTF-8 text: the size is all a person can use.
      return { path: target.relative, exists: true, size_bytes: size };
    }
  } finally {
    await handle.close();
  }
}
