"use client";

import { LIMITS } from "@parley/session-core/contract";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { useSignedIn } from "./auth-provider";
import { sessionsOf, useSessionList } from "./session-sidebar";

/** How many interactions wait, and whether that is a lower bound (`at_least`). */
export interface WaitingCount {
  waiting: number;
  at_least: boolean;
}

const PENDING_COUNT_KEY = ["inbox-pending-count"] as const;

/**
 * What the header (and the tab title) counts. An admin's count is the inbox's: the pending
 * interactions of every session, asked of the server (one page of up to `inbox_page_max` rows; a
 * lower bound beyond it), so it stays exact however many sessions there are. It is re-read on each
 * event of the live `admin.onInteraction` feed the inbox cards follow, and whenever that feed
 * (re)starts, so it moves with the cards instead of a poll. A member's is the sum over their own
 * sessions as listed, with the open session's live state laid over its entry
 * (`usePublishLiveSummary`), a lower bound while more pages of sessions exist.
 */
export function useWaitingCount(): WaitingCount {
  const { api, me } = useSignedIn();
  const admin = me.role === "admin";
  const sessions = useSessionList();
  const queryClient = useQueryClient();
  const pending = useQuery({
    queryKey: PENDING_COUNT_KEY,
    queryFn: () => api.adminInteractions({ status: "pending", limit: LIMITS.inbox_page_max }),
    enabled: admin,
  });
  useEffect(() => {
    if (!admin) return;
    const reread = () => void queryClient.invalidateQueries({ queryKey: PENDING_COUNT_KEY });
    // A feed that ends for good leaves the last count; the connection banner says why.
    return api.subscribeAdmin(reread, () => {}, reread);
  }, [admin, api, queryClient]);
  if (admin) {
    return {
      waiting: pending.data?.items.length ?? 0,
      at_least: (pending.data?.next_cursor ?? null) !== null,
    };
  }
  const waiting = sessionsOf(sessions.data).reduce((sum, session) => sum + session.pending_interactions, 0);
  return { waiting, at_least: sessions.hasNextPage };
}
