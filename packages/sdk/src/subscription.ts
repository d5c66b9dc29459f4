import type { Unsubscribable } from "@trpc/server/observable";
import { toParleyError } from "./parley-error.js";
import type { SubscribeOptions } from "./types.js";

/**
 * Starts a tracked subscription and delivers its events to `listener` in order, one at a time
 * (an async listener is awaited before the next event), each `event_id` at most once.
 *
 * Resuming is the ws client's job: it keeps the subscription across reconnects and re-sends it
 * with the last tracked id as `lastEventId`, and the server replays from its log after that id,
 * so nothing is missed. The `event_id` guard here only makes "no duplicate" hold even if a replay
 * overlapped.
 */
export function startTrackedSubscription<E extends { event_id: number }>(options: {
  subscribe: (
    input: { lastEventId?: string },
    handlers: { onData: (data: { id: string; data: E }) => void; onError: (error: unknown) => void },
  ) => Unsubscribable;
  listener: (event: E) => void | Promise<void>;
  subscribeOptions: SubscribeOptions | undefined;
}): () => void {
  const after = options.subscribeOptions?.after_event_id;
  let lastDelivered = after ?? 0;
  let delivery: Promise<void> = Promise.resolve();
  let active = true;

  const subscription = options.subscribe(after === undefined ? {} : { lastEventId: String(after) }, {
    onData: ({ data }) => {
      if (!active || data.event_id <= lastDelivered) return;
      lastDelivered = data.event_id;
      delivery = delivery
        .then(() => (active ? options.listener(data) : undefined))
        .catch((error: unknown) => {
          reportListenerError(error);
        });
    },
    onError: (error) => {
      if (!active) return;
      active = false;
      const reported = toParleyError(error);
      if (options.subscribeOptions?.onError) options.subscribeOptions.onError(reported);
      else console.error("[parley] subscription ended", reported);
    },
  });

  return () => {
    if (!active) return;
    active = false;
    subscription.unsubscribe();
  };
}

/** A failing listener must not stop delivery to itself or crash the host process. */
function reportListenerError(error: unknown): void {
  console.error("[parley] subscription listener failed", error);
}
