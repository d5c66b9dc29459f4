import type { SessionRecord, WorkspaceRef } from "@parley/session-core";
import {
  assertKnownWorkspace,
  listWorkspaces,
  resolveSessionWorkspace,
  type WorkspaceConfig,
} from "@parley/tools";

/**
 * The workspaces a session may work in: the operator's named ones (`PARLEY_WORKSPACES`) or, for a
 * session created without `workspace_id`, its own directory `<root>/<session_id>/`. Clients only
 * ever name a workspace; paths never come from the wire. The rules live in `@parley/tools`.
 */
export interface WorkspaceCatalog {
  list(): { workspace_id: string }[];
  /** Throws `invalid_input` for an id the operator did not configure. */
  assertKnown(workspace_id: string): void;
  resolve(session: Pick<SessionRecord, "session_id" | "workspace_id">): WorkspaceRef;
}

export function createWorkspaceCatalog(config: WorkspaceConfig): WorkspaceCatalog {
  return {
    list: () => listWorkspaces(config),
    assertKnown: (workspace_id) => assertKnownWorkspace(config, workspace_id),
    resolve: (session) => resolveSessionWorkspace(config, session),
  };
}
