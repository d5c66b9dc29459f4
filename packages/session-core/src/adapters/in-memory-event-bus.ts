import type { EventBus, EventBusListener } from "../ports/event-bus.js";
import type { RuntimeLogger } from "../ports/logger.js";
import type { InteractionEvent, SessionEvent } from "../ports/session-store.js";
import type { SessionMutation } from "../schema/mutation.js";
import { ListenerRegistry } from "./listener-registry.js";

type PublishedEvents = {
  session_events: SessionEvent[];
  interaction_events: InteractionEvent[];
  /** Live mutations queued behind a delivery (`publishLive` from inside a listener). */
  live?: SessionMutation[];
};

/**
 * A single-process `EventBus`: `publish` hands every event to every current subscriber of its
 * session before it resolves. Batches published from inside a listener are queued behind the batch
 * being delivered, so each listener sees events in publish order (and so, per session, in `event_id`
 * order). Each event is cloned once per publish (the publisher may reuse its objects) and the copy is
 * shared by the listeners. A listener that throws or rejects is logged and skipped.
 */
export class InMemoryEventBus implements EventBus {
  readonly #listeners: ListenerRegistry;
  /** Batches published during a delivery, already copied (the publisher may change its objects). */
  readonly #queue: PublishedEvents[] = [];
  #delivering = false;

  constructor(options: { logger?: Pick<RuntimeLogger, "error"> } = {}) {
    this.#listeners = new ListenerRegistry({ logger: options.logger });
  }

  async publish(events: PublishedEvents): Promise<void> {
    if (this.#delivering) {
      this.#queue.push(structuredClone(events));
      return;
    }
    this.#delivering = true;
    try {
      // The first batch is copied lazily, once per event and only if some listener wants it.
      this.#deliver(events, structuredClone);
      for (let batch = this.#queue.shift(); batch; batch = this.#queue.shift()) this.#deliver(batch);
    } finally {
      this.#delivering = false;
    }
  }

  /**
   * Delivered at once, or behind the batches being delivered when published from inside a listener
   * (so it still follows the durable events published before it).
   */
  publishLive(mutation: SessionMutation): void {
    const copy = structuredClone(mutation);
    if (this.#delivering) {
      this.#queue.push({ session_events: [], interaction_events: [], live: [copy] });
      return;
    }
    this.#listeners.emitLive(copy);
  }

  #deliver(batch: PublishedEvents, prepare?: <E>(event: E) => E): void {
    for (const event of batch.session_events) this.#listeners.emitSession(event, prepare);
    for (const event of batch.interaction_events) this.#listeners.emitInteraction(event, prepare);
    for (const mutation of batch.live ?? []) this.#listeners.emitLive(mutation);
  }

  subscribe(listener: EventBusListener): () => void {
    return this.#listeners.add(listener);
  }

  /** Number of live subscriptions (lets tests check that subscribers clean up). */
  get subscriberCount(): number {
    return this.#listeners.size;
  }
}
