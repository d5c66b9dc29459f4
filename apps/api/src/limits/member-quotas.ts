import { ParleyError } from "@parley/session-core";
import type { WorkspaceCatalog } from "../workspace-catalog.js";
import { directoryBytesBeyond } from "./directory-bytes.js";

/** A member's quotas (README "Configuration"); 0 turns one off. Admins have none. */
export interface MemberQuotaLimits {
  /** Sessions a member may have open (not closed) at once. */
  sessions_per_member: number;
  /** Prompts a member may send in any 60 s, over all their sessions. */
  prompts_per_minute: number;
  /** Bytes the member's own session workspaces may hold together (named workspaces are the operator's). */
  workspace_bytes: number;
}

export const DEFAULT_MEMBER_QUOTAS: MemberQuotaLimits = {
  sessions_per_member: 100,
  prompts_per_minute: 30,
  workspace_bytes: 1024 * 1024 * 1024,
};

const MINUTE_MS = 60_000;

/** The member's usage, read under a lock that is held until the guarded write is committed. */
export interface MemberUsagePort {
  withMemberLock<T>(
    user_id: string,
    prompts_since_ms: number,
    guarded: (usage: {
      open_sessions: { session_id: string; workspace_id: string | null }[];
      prompts_since: number;
      /** The guarded prompt repeats a committed one (same session and `request_id`). */
      is_retry: boolean;
    }) => Promise<T>,
    prompt_key?: { session_id: string; request_id: string },
  ): Promise<T>;
}

type QuotaUser = { user_id: string; role: "member" | "admin" };

/**
 * Enforces a member's quotas around the write they guard, answering `limit_exceeded` at the edge:
 * the N-th session or prompt passes, the N+1-th is refused. The check and the write run under the
 * member's lock (`@parley/db` `PostgresMemberUsage`), so concurrent calls cannot both slip past it.
 */
export class MemberQuotas {
  constructor(
    private readonly usage: MemberUsagePort,
    private readonly limits: MemberQuotaLimits,
    private readonly workspaces: Pick<WorkspaceCatalog, "resolve">,
  ) {}

  /** Creates a session with `create` unless the member already has `sessions_per_member` open. */
  createSession<T>(user: QuotaUser, create: () => Promise<T>): Promise<T> {
    if (user.role === "admin") return create();
    return this.usage.withMemberLock(user.user_id, Date.now() - MINUTE_MS, async (usage) => {
      const max = this.limits.sessions_per_member;
      if (max > 0 && usage.open_sessions.length >= max) {
        throw new ParleyError(
          "limit_exceeded",
          `You have ${usage.open_sessions.length} open sessions (the limit is ${max}); close one first`,
        );
      }
      return create();
    });
  }

  /**
   * Sends a prompt with `prompt` unless the member sent `prompts_per_minute` in the last minute or
   * their session workspaces hold more than `workspace_bytes`. A retry of a committed prompt (same
   * session and `request_id`) is answered from its first call whatever the quotas say now.
   */
  prompt<T>(
    user: QuotaUser,
    prompt: () => Promise<T>,
    prompt_key?: { session_id: string; request_id: string },
  ): Promise<T> {
    if (user.role === "admin") return prompt();
    return this.usage.withMemberLock(
      user.user_id,
      Date.now() - MINUTE_MS,
      async (usage) => {
        if (usage.is_retry) return prompt();
        const max = this.limits.prompts_per_minute;
        if (max > 0 && usage.prompts_since >= max) {
          throw new ParleyError(
            "limit_exceeded",
            `You sent ${usage.prompts_since} prompts in the last minute (the limit is ${max}); wait a little`,
          );
        }
        await this.assertWorkspaceBytes(usage.open_sessions);
        return prompt();
      },
      prompt_key,
    );
  }

  private async assertWorkspaceBytes(
    sessions: { session_id: string; workspace_id: string | null }[],
  ): Promise<void> {
    const max = this.limits.workspace_bytes;
    if (max <= 0) return;
    const roots = sessions
      .filter((session) => session.workspace_id === null)
      .map((session) => this.workspaces.resolve(session).root);
    if ((await directoryBytesBeyond(roots, max)) !== null) {
      throw new ParleyError(
        "limit_exceeded",
        `Your session workspaces hold more than ${max} bytes; delete files or close sessions first`,
      );
    }
  }
}
