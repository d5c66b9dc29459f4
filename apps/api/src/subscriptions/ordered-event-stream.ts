import type { SubscriptionStarted } from "@parley/session-core/contract";
import { AsyncQueue } from "./async-queue.js";

export interface OrderedEventSource<E extends { event_id: number }> {
  /**
   * Starts live delivery; returns the unsubscribe. Called before any replay read. `resync` is to
   * be called when the live channel may have lost events (the bus reconnected).
   */
  listen(push: (event: E) => void, resync: () => void): () => void;
  /** Committed events after `after_event_id`, ascending, at most `limit`. */
  readAfter(after_event_id: number, limit: number): Promise<E[]>;
}

const PAGE_SIZE = 500;

/** Queued by `resync`: read the log after the last delivered id before any later live event. */
const RESYNC = Symbol("resync");

/**
 * Gap-free, duplicate-free delivery of an ordered event log (docs/behaviour.md#subscriptions): listen first, then
 * replay everything after `after_event_id` from the log, then stream live events, skipping ones
 * already delivered and filling from the log any hole the live channel left (e.g. a dropped
 * notification, or a bus that was reconnecting: `resync` re-reads the log's tail). With
 * `after_event_id` null only events committed after the call are delivered. Events `isLive` says are
 * live (not in the log) are passed on only right after the event whose id they carry.
 */
export function streamOrderedEvents<E extends { event_id: number }>(options: {
  source: OrderedEventSource<E>;
  after_event_id: number | null;
  signal: AbortSignal | undefined;
  isLive?: (event: E) => boolean;
}): AsyncGenerator<E, void, undefined>;
/**
 * With `announce_start`, a `SubscriptionStarted` item follows the replay, before any live event: from
 * then on the source is listened to and the log is delivered through `last_event_id`.
 */
export function streamOrderedEvents<E extends { event_id: number }>(options: {
  source: OrderedEventSource<E>;
  after_event_id: number | null;
  signal: AbortSignal | undefined;
  announce_start: boolean;
  isLive?: (event: E) => boolean;
}): AsyncGenerator<E | SubscriptionStarted, void, undefined>;
export async function* streamOrderedEvents<E extends { event_id: number }>(options: {
  source: OrderedEventSource<E>;
  after_event_id: number | null;
  signal: AbortSignal | undefined;
  announce_start?: boolean;
  isLive?: (event: E) => boolean;
}): AsyncGenerator<E | SubscriptionStarted, void, undefined> {
  const { source, signal, isLive } = options;
  const live = new AsyncQueue<E | typeof RESYNC>();
  const stopListening = source.listen(
    (event) => live.push(event),
    () => live.push(RESYNC),
  );
  const onAbort = () => live.close();
  signal?.addEventListener("abort", onAbort);
  try {
    if (signal?.aborted) return;
    let last = options.after_event_id;

    async function* readRange(after: number, through: number): AsyncGenerator<E> {
      let cursor = after;
      while (cursor < through) {
        const page = await source.readAfter(cursor, Math.min(PAGE_SIZE, through - cursor));
        for (const event of page) {
          if (event.event_id > through) return;
          yield event;
          cursor = event.event_id;
        }
        if (page.length === 0) return;
      }
    }

    /** The whole log after `after`, page by page, until a page comes back short (the replay, a resync). */
    async function* readTail(after: number): AsyncGenerator<E> {
      let cursor = after;
      while (true) {
        const page = await source.readAfter(cursor, PAGE_SIZE);
        for (const event of page) {
          yield event;
          cursor = event.event_id;
        }
        if (page.length < PAGE_SIZE) return;
      }
    }

    if (last !== null) {
      for await (const event of readTail(last)) {
        yield event;
        last = event.event_id;
      }
    }
    if (options.announce_start === true) yield { started: true, last_event_id: last };

    for await (const event of live) {
      if (event === RESYNC) {
        if (last === null) continue;
        for await (const missed of readTail(last)) {
          yield missed;
          last = missed.event_id;
        }
        continue;
      }
      if (isLive?.(event)) {
        // Never committed, never replayed (DESIGN §10.6): it belongs right after the durable event
        // whose id it carries. Past that event (a later one covers it) it is dropped; it moves no
        // position, so a reconnect from its id resumes with the durable events after it.
        if (last === null || event.event_id === last) yield event;
        continue;
      }
      if (last === null) last = event.event_id - 1;
      if (event.event_id <= last) continue;
      if (event.event_id > last + 1) {
        for await (const missed of readRange(last, event.event_id - 1)) {
          if (missed.event_id <= last) continue;
          yield missed;
          last = missed.event_id;
        }
      }
      yield event;
      last = event.event_id;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    stopListening();
    live.close();
  }
}
