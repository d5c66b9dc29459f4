"use client";

import type { RespondInput } from "@parley/sdk";
import { useCallback, useEffect, useReducer, useState } from "react";
import { followAdminInbox } from "@/lib/admin-inbox-follow";
import { type InboxLists, loadInboxLists } from "@/lib/admin-inbox-lists";
import { type AdminInboxState, adminInboxReducer, createAdminInboxState } from "@/lib/admin-inbox-state";
import { type DisplayError, type ParleyApi, toDisplayError } from "@/lib/parley-api";

export interface AdminInboxFeed {
  state: AdminInboxState;
  /** The last load stopped at its bound: more pending rows exist than are listed. */
  truncated: boolean;
  /** Subscribes and loads again from scratch (the error state's "Retry"). */
  retry: () => void;
  /** Answers an interaction of that session: null, or why it failed. */
  respondFor: (session_id: string) => (input: RespondInput) => Promise<DisplayError | null>;
}

/**
 * The inbox's data, followed live (`followAdminInbox`: the lists are re-read each time the feed
 * (re)starts). The lists are also re-read when a row of an unseen session arrives (it lacks title
 * and owner), and when an answer finds its interaction already answered elsewhere.
 */
export function useAdminInboxFeed(api: ParleyApi): AdminInboxFeed {
  const [state, dispatch] = useReducer(adminInboxReducer, undefined, createAdminInboxState);
  const [truncated, setTruncated] = useState(false);
  const [attempt, setAttempt] = useState(0);

  const apply = useCallback((lists: InboxLists) => {
    setTruncated(lists.truncated);
    dispatch({ type: "loaded", ...lists });
  }, []);
  const reread = useCallback(() => {
    loadInboxLists(api).then(apply, () => undefined);
  }, [api, apply]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: attempt re-runs the load on "Retry"
  useEffect(
    () =>
      followAdminInbox(api, {
        event: (event) => dispatch({ type: "event", event }),
        lists: apply,
        failed: (message) => dispatch({ type: "error", message }),
      }),
    [api, apply, attempt],
  );

  useEffect(() => {
    if (state.needs_refresh) reread();
  }, [reread, state.needs_refresh]);

  const respondFor = useCallback(
    (session_id: string) =>
      async (input: RespondInput): Promise<DisplayError | null> => {
        try {
          await api.session(session_id).respond(input);
          return null;
        } catch (error) {
          const display = toDisplayError(error);
          if (display.code === "interaction_not_pending") reread();
          return display;
        }
      },
    [api, reread],
  );

  const retry = useCallback(() => setAttempt((value) => value + 1), []);
  return { state, truncated, retry, respondFor };
}
