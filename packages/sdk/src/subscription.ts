import { ParleyError } from "@parley/session-core/wire";
import type { Unsubscribable } from "@trpc/server/observable";
import { toParleyError } from "./parley-error.js";
import type { SubscribeOptions, SubscriptionStarted } from "./types.js";

/** Waits before re-subscribing after a server-side failure (the last value repeats). */
const RETRY_DELAYS_MS = [100, 250, 500, 1_000, 2_000, 5_000] as const;

/**
 * Starts a tracked subscription and delivers its events to `listener` in order, one at a time
 * (an async listener is awaited before the next event), each `event_id` at most once.
 *
 * Two kinds of interruption are survived without a gap:
 * - a dropped connection: the ws client keeps the subscription and re-sends it with the last
 *   tracked id as `lastEventId`; the server replays its log after that id;
 * - a subscription the server ended with an unexpected (non-domain) error, e.g. its database
 *   connection failed: it is re-subscribed here, after a short backoff, from the last delivered id.
 * A domain error (`ParleyError`: `unauthorized`, `session_not_found` …) ends it for good and goes
 * to `onError`. The `event_id` guard makes "no duplicate" hold even if a replay overlapped.
 *
 * Live events (`isLive`, DESIGN §10.6) carry the id of the durable event they follow, not a new one:
 * they never move the position a reconnect resumes from, and one is handed on only right after
 * that durable event (an older one is stale: a later durable event already carries its persisted
 * form). Every start after the first is a reconnect: `onReconnect` runs in delivery order after the
 * durable events missed meanwhile and before any live event of the new connection.
 */
export function startTrackedSubscription<E extends { event_id: number }>(options: {
  /** Items are `{ id, data: E }` (tracked events) or a `SubscriptionStarted` (announced starts). */
  subscribe: (
    input: { lastEventId?: string; announce_start: true },
    handlers: { onData: (item: unknown) => void; onError: (error: unknown) => void },
  ) => Unsubscribable;
  listener: (event: E) => void | Promise<void>;
  subscribeOptions: SubscribeOptions | undefined;
  /** Tells a live event from a durable one; without it every event is durable. */
  isLive?: (event: E) => boolean;
  /** Whether live events reach the listener (else they are dropped here). */
  deliverLive?: boolean;
}): () => void {
  const after = options.subscribeOptions?.after_event_id;
  let lastDelivered: number | undefined = after;
  let delivery: Promise<void> = Promise.resolve();
  let active = true;
  let failures = 0;
  let current: Unsubscribable | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let starts = 0;

  const end = (error: unknown) => {
    active = false;
    if (options.subscribeOptions?.onError) options.subscribeOptions.onError(error);
    else console.error("[parley] subscription ended", error);
  };

  /** Runs `step` after everything delivered before it; a failing step stops nothing after it. */
  const enqueue = (step: () => void | Promise<void>) => {
    delivery = delivery.then(() => (active ? step() : undefined)).catch(reportListenerError);
  };

  const start = () => {
    const input = lastDelivered === undefined ? {} : { lastEventId: String(lastDelivered) };
    current = options.subscribe(
      { ...input, announce_start: true },
      {
        onData: (item) => {
          failures = 0;
          if (!active) return;
          if (isSubscriptionStarted(item)) {
            starts += 1;
            const onReconnect = starts > 1 ? options.subscribeOptions?.onReconnect : undefined;
            if (onReconnect) enqueue(onReconnect);
            const onStarted = options.subscribeOptions?.onStarted;
            const started = { last_event_id: item.last_event_id };
            // In the delivery order: every event through `last_event_id` reached the listener first.
            if (onStarted) enqueue(() => onStarted(started));
            return;
          }
          const { data } = item as { data: E };
          if (options.isLive?.(data) === true) {
            if (options.deliverLive !== true) return;
            if (lastDelivered !== undefined && data.event_id !== lastDelivered) return;
            enqueue(() => options.listener(data));
            return;
          }
          if (lastDelivered !== undefined && data.event_id <= lastDelivered) return;
          lastDelivered = data.event_id;
          enqueue(() => options.listener(data));
        },
        onError: (error) => {
          if (!active) return;
          const reported = toParleyError(error);
          if (reported instanceof ParleyError) {
            end(reported);
            return;
          }
          const delay = RETRY_DELAYS_MS[Math.min(failures, RETRY_DELAYS_MS.length - 1)];
          failures += 1;
          retry = setTimeout(() => {
            retry = null;
            if (active) start();
          }, delay);
        },
      },
    );
  };

  start();

  return () => {
    if (!active) return;
    active = false;
    if (retry !== null) clearTimeout(retry);
    current?.unsubscribe();
  };
}

function isSubscriptionStarted(item: unknown): item is SubscriptionStarted {
  return typeof item === "object" && item !== null && "started" in item && item.started === true;
}

/** A failing listener must not stop delivery to itself or crash the host process. */
function reportListenerError(error: unknown): void {
  console.error("[parley] subscription listener failed", error);
}
