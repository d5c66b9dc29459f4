"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { ParleySessionApi, QueuedPrompt } from "./parley-api";
import { isTurnRunning, type SessionViewState } from "./session-state";

/**
 * The server's queued prompts of the open session (docs/behaviour.md#queued-prompts), the same for
 * every client and after a reload. Read once the view is loaded, and again whenever the feed says
 * the queue may have changed: a `queue` mutation (a prompt queued or withdrawn by anyone), a new
 * user message (a queued prompt was taken), or a Turn boundary (a stop cancels what was queued).
 * Answers that arrive out of order are dropped: only the newest read is shown.
 */
export function useQueuedPrompts(
  handle: ParleySessionApi,
  state: SessionViewState,
): { queued: readonly QueuedPrompt[]; reread: () => void } {
  const [queued, setQueued] = useState<readonly QueuedPrompt[]>([]);
  const latest = useRef(0);
  const reread = useCallback(() => {
    latest.current += 1;
    const request = latest.current;
    handle.queuedPrompts().then(
      (items) => {
        if (request === latest.current) setQueued(items);
      },
      () => undefined, // the next change of the feed reads again; a failed read changes nothing
    );
  }, [handle]);

  let userMessages = 0;
  for (const message of state.messages.values()) if (message.type === "user") userMessages += 1;
  const trigger = [
    state.phase,
    state.queue_changes,
    userMessages,
    isTurnRunning(state.turn),
    state.turn.running_turn_ids.join(","),
  ].join("|");
  // biome-ignore lint/correctness/useExhaustiveDependencies: trigger says when the queue may have changed
  useEffect(() => {
    if (state.phase === "ready") reread();
  }, [trigger, reread]);

  return { queued, reread };
}
