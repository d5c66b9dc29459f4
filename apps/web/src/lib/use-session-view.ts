"use client";

import { useCallback, useEffect, useReducer, useState } from "react";
import type { ParleySessionApi } from "./parley-api";
import { toDisplayError } from "./parley-api";
import { createSessionViewState, type SessionViewState, sessionViewReducer } from "./session-state";

/**
 * Keeps one Session's view in sync: subscribe from now (buffering) → once the subscription has
 * started, load info, messages and status → apply the buffer → live. Unsubscribes when the session changes or the view unmounts, so no
 * mutation, card or turn state of an old session can reach a new one.
 */
export function useSessionView(handle: ParleySessionApi): {
  state: SessionViewState;
  refreshStatus: () => Promise<void>;
  loadOlder: (before_sequence: number) => Promise<void>;
  /** Re-reads the newest messages, e.g. after the server said an Interaction was already answered. */
  resync: () => Promise<void>;
  /** Why the live feed stopped for good (dropped connections resume and do not count), if it did. */
  feedEnded: string | null;
  /** Starts over: a new subscription and a fresh snapshot. */
  restart: () => void;
} {
  const [state, dispatch] = useReducer(sessionViewReducer, handle.id, createSessionViewState);
  const [feedEnded, setFeedEnded] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);

  const refreshStatus = useCallback(async () => {
    try {
      dispatch({ type: "status", status: await handle.status() });
    } catch {
      // The next mutation or reload brings the modes back in step; a failed refresh changes nothing.
    }
  }, [handle]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: generation re-runs the sync on restart
  useEffect(() => {
    let disposed = false;
    let snapshotRequested = false;
    const loadSnapshot = () => {
      snapshotRequested = true;
      Promise.all([handle.info(), handle.messages(), handle.status()]).then(
        ([info, page, status]) => {
          if (disposed) return;
          dispatch({
            type: "snapshot",
            snapshot: {
              info,
              messages: page.items,
              status,
              older_before_sequence: page.has_more ? page.next_before_sequence : null,
            },
          });
        },
        (error: unknown) => {
          if (!disposed) dispatch({ type: "error", message: toDisplayError(error).message });
        },
      );
    };
    const unsubscribe = handle.subscribe(
      (mutation) => {
        if (disposed) return;
        dispatch({ type: "mutation", mutation });
        // A config change becomes effective at a Step checkpoint, reported by its Action message
        // or a Turn boundary; re-read the modes then instead of guessing.
        if ((mutation.variant === "message" && mutation.type === "action") || mutation.variant === "turn") {
          void refreshStatus();
        }
      },
      {
        // The server listens from here on, so a snapshot read now misses nothing; mutations that
        // arrive before it are buffered by the reducer.
        onStarted: ({ last_event_id }) => {
          if (disposed) return;
          if (!snapshotRequested) loadSnapshot();
          else if (last_event_id === null) void refreshStatus();
        },
        // Live text streamed while the feed was down is gone for good (never replayed): drop what
        // is live-only and re-read the messages, which carry its last checkpoint. A reconnect
        // before any mutation arrived resumed from "now", so this also fills what it missed.
        onReconnect: () => {
          if (disposed) return;
          dispatch({ type: "reconnected" });
          if (!snapshotRequested) return;
          handle.messages().then(
            (page) => {
              if (!disposed) dispatch({ type: "merge", messages: page.items });
            },
            () => undefined,
          );
        },
        onEnded: (error) => {
          if (disposed) return;
          setFeedEnded(toDisplayError(error).message);
          // The snapshot still shows what there is (or why there is nothing, e.g. no such session).
          if (!snapshotRequested) loadSnapshot();
        },
      },
    );
    return () => {
      disposed = true;
      unsubscribe();
    };
  }, [handle, refreshStatus, generation]);

  const restart = useCallback(() => {
    setFeedEnded(null);
    dispatch({ type: "reset" });
    setGeneration((value) => value + 1);
  }, []);

  const loadOlder = useCallback(
    async (before_sequence: number) => {
      const page = await handle.messages(before_sequence);
      dispatch({
        type: "merge",
        messages: page.items,
        older_before_sequence: page.has_more ? page.next_before_sequence : null,
      });
    },
    [handle],
  );

  const resync = useCallback(async () => {
    try {
      const page = await handle.messages();
      dispatch({ type: "merge", messages: page.items });
    } catch {
      // The live feed still brings the state in; a failed re-read changes nothing.
    }
  }, [handle]);

  return { state, refreshStatus, loadOlder, resync, feedEnded, restart };
}
