"use client";

import { type InfiniteData, type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useLayoutEffect, useRef } from "react";
import {
  isSameSummary,
  type LiveSessionSummary,
  summarizeSessionView,
  withLiveSummary,
} from "@/lib/live-session-summary";
import type { SessionListPage } from "@/lib/parley-api";
import type { SessionViewState } from "@/lib/session-state";
import { SESSIONS_QUERY_KEY } from "./session-sidebar";

/**
 * Hands the open session's live state (Turn, pending Interactions, title) to the sidebar.
 *
 * Layout effects run before the browser paints, so the sidebar entry changes in the same frame as
 * the header. The session list is a polled query whose answer may predate the live feed (a read
 * that races a Turn's end still says "running"), so the live summary is laid over the list while
 * the view is open, and written into the list cache when it closes, where the next poll replaces it.
 */
export function usePublishLiveSummary(
  state: SessionViewState,
  onLiveSummary: (summary: LiveSessionSummary | null) => void,
): void {
  const queryClient = useQueryClient();
  const published = useRef<LiveSessionSummary | null>(null);
  const summary = summarizeSessionView(state);

  useLayoutEffect(() => {
    if (summary === null || isSameSummary(published.current, summary)) return;
    const changed = published.current !== null;
    published.current = summary;
    onLiveSummary(summary);
    writeIntoList(queryClient, summary);
    // What only the server knows (e.g. updated_at) is re-read when the state moved.
    if (changed) void queryClient.invalidateQueries({ queryKey: SESSIONS_QUERY_KEY });
  });

  useLayoutEffect(
    () => () => {
      onLiveSummary(null);
      const last = published.current;
      if (last === null) return;
      // A list read still in flight may predate the last live change; drop it and keep the live state.
      void queryClient
        .cancelQueries({ queryKey: SESSIONS_QUERY_KEY })
        .then(() => writeIntoList(queryClient, last));
    },
    [onLiveSummary, queryClient],
  );
}

function writeIntoList(queryClient: QueryClient, summary: LiveSessionSummary): void {
  queryClient.setQueryData<InfiniteData<SessionListPage>>(SESSIONS_QUERY_KEY, (list) =>
    list === undefined
      ? undefined
      : {
          ...list,
          pages: list.pages.map((page) => ({
            ...page,
            items: page.items.map((info) => withLiveSummary(info, summary)),
          })),
        },
  );
}
