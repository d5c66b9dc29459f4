"use client";

import { LIMITS } from "@parley/session-core/contract";
import { useQuery } from "@tanstack/react-query";
import { useSignedIn } from "./auth-provider";
import { sessionsOf, useSessionList } from "./session-sidebar";

/** How many interactions wait, and whether that is a lower bound (`at_least`). */
export interface WaitingCount {
  waiting: number;
  at_least: boolean;
}

/**
 * What the header counts. An admin's count is the inbox's: the pending interactions of every
 * session, asked of the server (one page of up to `inbox_page_max` rows; a lower bound beyond it),
 * so it stays exact however many sessions there are. A member's is the sum over their own sessions
 * as listed (a lower bound while more pages of sessions exist). Both refresh as the list does.
 */
export function useWaitingCount(): WaitingCount {
  const { api, me } = useSignedIn();
  const admin = me.role === "admin";
  const sessions = useSessionList();
  const pending = useQuery({
    queryKey: ["inbox-pending-count"],
    queryFn: () => api.adminInteractions({ status: "pending", limit: LIMITS.inbox_page_max }),
    enabled: admin,
    refetchInterval: 5_000,
  });
  if (admin) {
    return {
      waiting: pending.data?.items.length ?? 0,
      at_least: (pending.data?.next_cursor ?? null) !== null,
    };
  }
  const waiting = sessionsOf(sessions.data).reduce((sum, session) => sum + session.pending_interactions, 0);
  return { waiting, at_least: sessions.hasNextPage };
}
