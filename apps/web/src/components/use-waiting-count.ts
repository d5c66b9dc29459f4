"use client";

import { LIMITS } from "@parley/sdk";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { type PendingKeys, pendingKeysOf, withInteractionEvent } from "../lib/pending-count";
import { useSignedIn } from "./auth-provider";
import { SESSIONS_QUERY_KEY, sessionsOf, useSessionList } from "./session-sidebar";

/** How many interactions wait, and whether that is a lower bound (`at_least`). */
export interface WaitingCount {
  waiting: number;
  at_least: boolean;
}

const PENDING_COUNT_KEY = ["inbox-pending-count"] as const;

/**
 * What the header (and the tab title) counts, moving with the live interaction feed the cards
 * follow rather than a poll. An admin's count is the inbox's: the pending interactions of every
 * session, asked of the server (one page of up to `inbox_page_max` rows; a lower bound beyond it),
 * so it stays exact however many sessions there are; each event of `admin.onInteraction` is laid
 * over it at once and the page is re-read after it. A member's is the sum over their own sessions
 * as listed, with the open session's live state laid over its entry (`usePublishLiveSummary`), a
 * lower bound while more pages of sessions exist; the list is re-read on each event of
 * `session.onInteraction` (their own sessions' requests), so a request in a session not open here
 * counts at once. Both are also re-read whenever their feed (re)starts, which may have missed an
 * event.
 */
export function useWaitingCount(): WaitingCount {
  const { api, me } = useSignedIn();
  const admin = me.role === "admin";
  const sessions = useSessionList();
  const queryClient = useQueryClient();
  const pending = useQuery({
    queryKey: PENDING_COUNT_KEY,
    queryFn: async () =>
      pendingKeysOf(await api.adminInteractions({ status: "pending", limit: LIMITS.inbox_page_max })),
    enabled: admin,
  });
  useEffect(() => {
    const queryKey = admin ? PENDING_COUNT_KEY : SESSIONS_QUERY_KEY;
    // The re-read starts after the event (one in flight is cancelled), so it holds what the event
    // said and replaces the count laid over by `withInteractionEvent` with the server's.
    const reread = () => void queryClient.invalidateQueries({ queryKey });
    // A feed that ends for good leaves the last count; the connection banner says why.
    const ended = () => {};
    if (!admin) return api.subscribeSessionInteractions(reread, ended, reread);
    return api.subscribeAdmin(
      (event) => {
        queryClient.setQueryData<PendingKeys>(PENDING_COUNT_KEY, (count) =>
          count === undefined ? count : withInteractionEvent(count, event),
        );
        reread();
      },
      ended,
      reread,
    );
  }, [admin, api, queryClient]);
  if (admin) {
    return { waiting: pending.data?.keys.length ?? 0, at_least: pending.data?.at_least ?? false };
  }
  const waiting = sessionsOf(sessions.data).reduce((sum, session) => sum + session.pending_interactions, 0);
  return { waiting, at_least: sessions.hasNextPage };
}
