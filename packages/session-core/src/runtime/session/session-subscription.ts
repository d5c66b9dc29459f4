import type { EventBus } from "../../ports/event-bus.js";
import type { SessionEvent, SessionStore } from "../../ports/session-store.js";
import type { SessionMutation } from "../../schema/mutation.js";
import type { RuntimeLogger } from "../session-runtime-options.js";

const REPLAY_PAGE = 500;

/**
 * A gap-free, duplicate-free subscription to one session's committed mutations: it subscribes to the
 * bus first (buffering), replays the log after `after_event_id` from the store, then delivers the
 * buffer and new events, each `event_id` once and in order. Live mutations (`live: true`, §10.6)
 * are handed on between the durable events they sit between, never replayed. A listener that
 * throws or rejects affects nothing else.
 */
export function subscribeToSession(options: {
  session_id: string;
  store: SessionStore;
  bus: EventBus;
  logger: RuntimeLogger | undefined;
  listener: (mutation: SessionMutation) => void | Promise<void>;
  after_event_id: number | undefined;
}): () => void {
  const { session_id, listener, logger } = options;
  let active = true;
  let replaying = options.after_event_id !== undefined;
  let lastDelivered = options.after_event_id ?? 0;
  let buffer: SessionEvent[] = [];

  const invoke = (mutation: SessionMutation) => {
    try {
      const result = listener(mutation);
      if (result instanceof Promise) {
        result.catch((error: unknown) =>
          logger?.error({ session_id, err: error }, "session subscriber failed"),
        );
      }
    } catch (error) {
      logger?.error({ session_id, err: error }, "session subscriber failed");
    }
  };
  const deliver = (event: SessionEvent) => {
    if (!active || event.event_id <= lastDelivered) return;
    lastDelivered = event.event_id;
    invoke(event.mutation);
  };

  /** Reads the log after the last delivered id, holding live events back meanwhile. */
  let resyncAgain = false;
  const replay = async () => {
    replaying = true;
    do {
      resyncAgain = false;
      try {
        for (;;) {
          const page = await options.store.listEvents(session_id, lastDelivered, REPLAY_PAGE);
          for (const event of page) deliver(event);
          if (page.length < REPLAY_PAGE || !active) break;
        }
      } catch (error) {
        logger?.error({ session_id, err: error }, "replaying session events failed");
      }
    } while (resyncAgain && active);
    replaying = false;
    const buffered = buffer.sort((left, right) => left.event_id - right.event_id);
    buffer = [];
    for (const event of buffered) deliver(event);
  };

  const unsubscribe = options.bus.subscribe({
    session_id,
    onSessionEvent(event) {
      if (event.session_id !== session_id) return;
      if (replaying) buffer.push(event);
      else deliver(event);
    },
    // A live mutation (§10.6) is handed on only where it belongs: right after the durable event it
    // follows. Held back it would be stale by the time the replay ends, so it is dropped; the next
    // checkpoint carries its persisted form.
    onLiveMutation(mutation) {
      if (!active || replaying || mutation.session_id !== session_id) return;
      if (mutation.event_id !== lastDelivered) return;
      invoke(mutation);
    },
    // The bus lost its connection for a while: notices may be gone, the log is not.
    onResync() {
      // A live-only subscription that has received nothing yet has no position to read after.
      if (!active || (options.after_event_id === undefined && lastDelivered === 0)) return;
      if (replaying) resyncAgain = true;
      else void replay();
    },
  });

  if (replaying) void replay();

  return () => {
    if (!active) return;
    active = false;
    unsubscribe();
  };
}
