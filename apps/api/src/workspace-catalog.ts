import type { SessionRecord, WorkspaceRef } from "@parley/session-core";
import {
  assertKnownWorkspace,
  listWorkspaces,
  resolveSessionWorkspace,
  type WorkspaceConfig,
  type WorkspaceUser,
} from "@parley/tools";

/**
 * The workspaces a session may work in: the operator's named ones (`PARLEY_WORKSPACES`) or, for a
 * session created without `workspace_id`, its own directory `<root>/<session_id>/`. Clients only
 * ever name a workspace; paths never come from the wire. The rules live in `@parley/tools`.
 */
export interface WorkspaceCatalog {
  /** The workspaces `user` may use (`PARLEY_WORKSPACES` may limit one to listed users). */
  list(user: WorkspaceUser): { workspace_id: string }[];
  /** Throws `invalid_input` for an id the operator did not configure, or one `user` may not use. */
  assertKnown(workspace_id: string, user: WorkspaceUser): void;
  resolve(session: Pick<SessionRecord, "session_id" | "workspace_id">): WorkspaceRef;
}

export function createWorkspaceCatalog(config: WorkspaceConfig): WorkspaceCatalog {
  return {
    list: (user) => listWorkspaces(config, user),
    assertKnown: (workspace_id, user) => assertKnownWorkspace(config, workspace_id, user),
    resolve: (session) => resolveSessionWorkspace(config, session),
  };
}
