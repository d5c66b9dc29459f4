import { mkdir } from "node:fs/promises";
import path from "node:path";
import { ParleyError, type SessionRecord, type WorkspaceRef } from "@parley/session-core";

/**
 * The workspaces a session may work in: the operator's named ones (`PARLEY_WORKSPACES`) or, for a
 * session created without `workspace_id`, its own directory `<root>/<session_id>/`. Clients only
 * ever name a workspace; paths never come from the wire.
 */
export interface WorkspaceCatalog {
  list(): { workspace_id: string }[];
  /** Throws `invalid_input` for an id the operator did not configure. */
  assertKnown(workspace_id: string): void;
  resolve(session: Pick<SessionRecord, "session_id" | "workspace_id">): WorkspaceRef;
  /** Creates the session's directory so its tools start in an existing folder. */
  prepare(session: Pick<SessionRecord, "session_id" | "workspace_id">): Promise<void>;
}

export function createWorkspaceCatalog(options: {
  session_root: string;
  named: readonly { workspace_id: string; root: string }[];
}): WorkspaceCatalog {
  const sessionRoot = path.resolve(options.session_root);
  const named = new Map(options.named.map((entry) => [entry.workspace_id, path.resolve(entry.root)]));

  const resolve = (session: Pick<SessionRecord, "session_id" | "workspace_id">): WorkspaceRef => {
    if (session.workspace_id === null) {
      return { workspace_id: null, root: path.join(sessionRoot, encodeURIComponent(session.session_id)) };
    }
    const root = named.get(session.workspace_id);
    if (root === undefined) {
      throw new ParleyError("invalid_input", `Unknown workspace: ${session.workspace_id}`);
    }
    return { workspace_id: session.workspace_id, root };
  };

  return {
    list: () => [...named.keys()].map((workspace_id) => ({ workspace_id })),
    assertKnown(workspace_id) {
      if (!named.has(workspace_id))
        throw new ParleyError("invalid_input", `Unknown workspace: ${workspace_id}`);
    },
    resolve,
    async prepare(session) {
      await mkdir(resolve(session).root, { recursive: true });
    },
  };
}
