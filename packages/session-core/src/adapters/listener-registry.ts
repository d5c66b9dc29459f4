import type { EventBusListener } from "../ports/event-bus.js";
import type { RuntimeLogger } from "../ports/logger.js";
import type { InteractionEvent, SessionEvent } from "../ports/session-store.js";
import type { SessionMutation } from "../schema/mutation.js";

/**
 * The listeners of one `EventBus`, indexed so that an event reaches only those who want it: a
 * session's events go to that session's listeners (a map lookup, not a scan of every listener) and
 * to the listeners of every session; the admin feed goes to its own set. `prepare` (e.g. a clone of
 * a publisher's object) runs at most once per event, and only when someone will receive it; the
 * result is shared by the recipients. A listener that throws or rejects is logged and skipped.
 */
export class ListenerRegistry {
  readonly #bySession = new Map<string, Set<EventBusListener>>();
  readonly #everySession = new Set<EventBusListener>();
  readonly #interactions = new Set<EventBusListener>();
  readonly #resync = new Set<EventBusListener>();
  readonly #all = new Set<EventBusListener>();
  readonly #logger: Pick<RuntimeLogger, "error"> | undefined;

  constructor(options: { logger?: Pick<RuntimeLogger, "error"> | undefined } = {}) {
    this.#logger = options.logger;
  }

  /** Registers a copy of `listener` (so one object subscribed twice is two subscriptions). */
  add(listener: EventBusListener): () => void {
    const entry: EventBusListener = { ...listener };
    const { session_id } = entry;
    this.#all.add(entry);
    if (entry.onSessionEvent || entry.onLiveMutation) {
      if (session_id === undefined) this.#everySession.add(entry);
      else {
        let listeners = this.#bySession.get(session_id);
        if (!listeners) {
          listeners = new Set();
          this.#bySession.set(session_id, listeners);
        }
        listeners.add(entry);
      }
    }
    if (entry.onInteractionEvent) this.#interactions.add(entry);
    if (entry.onResync) this.#resync.add(entry);
    return () => {
      this.#all.delete(entry);
      this.#everySession.delete(entry);
      this.#interactions.delete(entry);
      this.#resync.delete(entry);
      if (session_id === undefined) return;
      const listeners = this.#bySession.get(session_id);
      if (listeners?.delete(entry) && listeners.size === 0) this.#bySession.delete(session_id);
    };
  }

  /** Whether any listener would receive an event of `session_id`. */
  wantsSession(session_id: string): boolean {
    return this.#everySession.size > 0 || this.#bySession.has(session_id);
  }

  /** Whether any listener would receive an admin feed event. */
  wantsInteractions(): boolean {
    return this.#interactions.size > 0;
  }

  /** Sessions that have listeners of their own (not counting the listeners of every session). */
  sessionIds(): IterableIterator<string> {
    return this.#bySession.keys();
  }

  /** Number of live subscriptions (lets tests check that subscribers clean up). */
  get size(): number {
    return this.#all.size;
  }

  emitSession(event: SessionEvent, prepare?: (event: SessionEvent) => SessionEvent): void {
    const targeted = this.#bySession.get(event.session_id);
    if (this.#everySession.size === 0 && !targeted) return;
    const shared = prepare ? prepare(event) : event;
    const fields = { session_id: event.session_id, event_id: event.event_id };
    // Iterating a live Set skips listeners removed meanwhile, so an unsubscribe takes effect at once.
    for (const listener of this.#everySession) this.#invoke(() => listener.onSessionEvent?.(shared), fields);
    if (targeted)
      for (const listener of targeted) this.#invoke(() => listener.onSessionEvent?.(shared), fields);
  }

  /** Hands a live mutation (§10.6) to the listeners of its session that take live mutations. */
  emitLive(mutation: SessionMutation): void {
    const targeted = this.#bySession.get(mutation.session_id);
    const fields = { session_id: mutation.session_id, live_after: mutation.event_id };
    for (const listener of this.#everySession)
      this.#invoke(() => listener.onLiveMutation?.(mutation), fields);
    if (targeted)
      for (const listener of targeted) this.#invoke(() => listener.onLiveMutation?.(mutation), fields);
  }

  emitInteraction(event: InteractionEvent, prepare?: (event: InteractionEvent) => InteractionEvent): void {
    if (this.#interactions.size === 0) return;
    const shared = prepare ? prepare(event) : event;
    const fields = { interaction_event_id: event.event_id };
    for (const listener of this.#interactions)
      this.#invoke(() => listener.onInteractionEvent?.(shared), fields);
  }

  emitResync(): void {
    for (const listener of this.#resync) this.#invoke(() => listener.onResync?.(), { resync: true });
  }

  clear(): void {
    this.#all.clear();
    this.#bySession.clear();
    this.#everySession.clear();
    this.#interactions.clear();
    this.#resync.clear();
  }

  #invoke(call: () => unknown, fields: Record<string, unknown>): void {
    try {
      const result = call();
      // A listener typed as returning void may still be an async function; its rejection is its own.
      if (result instanceof Promise) {
        result.catch((error: unknown) =>
          this.#logger?.error({ ...fields, err: error }, "event bus listener failed"),
        );
      }
    } catch (error) {
      this.#logger?.error({ ...fields, err: error }, "event bus listener failed");
    }
  }
}
