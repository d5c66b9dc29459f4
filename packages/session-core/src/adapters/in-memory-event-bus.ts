import type { EventBus, EventBusListener } from "../ports/event-bus.js";
import type { InteractionEvent, SessionEvent } from "../ports/session-store.js";
import type { RuntimeLogger } from "../runtime/session-runtime-options.js";

type PublishedEvents = { session_events: SessionEvent[]; interaction_events: InteractionEvent[] };

interface Subscription {
  listener: EventBusListener;
  active: boolean;
}

/**
 * A single-process `EventBus`: `publish` hands every event to every current subscriber before it
 * resolves. Batches published from inside a listener are queued behind the batch being delivered,
 * so each listener sees events in publish order (and so, per session, in `event_id` order). A
 * listener that throws or rejects is logged and skipped; the others still receive the event.
 */
export class InMemoryEventBus implements EventBus {
  readonly #subscriptions = new Set<Subscription>();
  readonly #queue: PublishedEvents[] = [];
  readonly #logger: Pick<RuntimeLogger, "error"> | undefined;
  #delivering = false;

  constructor(options: { logger?: Pick<RuntimeLogger, "error"> } = {}) {
    this.#logger = options.logger;
  }

  async publish(events: PublishedEvents): Promise<void> {
    this.#queue.push(structuredClone(events));
    if (this.#delivering) return;
    this.#delivering = true;
    try {
      for (let batch = this.#queue.shift(); batch; batch = this.#queue.shift()) {
        this.#deliver(batch);
      }
    } finally {
      this.#delivering = false;
    }
  }

  subscribe(listener: EventBusListener): () => void {
    const subscription: Subscription = { listener, active: true };
    this.#subscriptions.add(subscription);
    return () => {
      subscription.active = false;
      this.#subscriptions.delete(subscription);
    };
  }

  /** Number of live subscriptions (lets tests check that subscribers clean up). */
  get subscriberCount(): number {
    return this.#subscriptions.size;
  }

  #deliver(batch: PublishedEvents): void {
    const subscriptions = [...this.#subscriptions];
    for (const event of batch.session_events) {
      for (const subscription of subscriptions) {
        if (!subscription.active || !subscription.listener.onSessionEvent) continue;
        this.#invoke(() => subscription.listener.onSessionEvent?.(structuredClone(event)), {
          session_id: event.session_id,
          event_id: event.event_id,
        });
      }
    }
    for (const event of batch.interaction_events) {
      for (const subscription of subscriptions) {
        if (!subscription.active || !subscription.listener.onInteractionEvent) continue;
        this.#invoke(() => subscription.listener.onInteractionEvent?.(structuredClone(event)), {
          interaction_event_id: event.event_id,
        });
      }
    }
  }

  #invoke(call: () => unknown, fields: Record<string, unknown>): void {
    try {
      const result = call();
      // A listener typed as returning void may still be an async function; its rejection is its own.
      if (result instanceof Promise) {
        result.catch((error: unknown) => this.#logListenerError(error, fields));
      }
    } catch (error) {
      this.#logListenerError(error, fields);
    }
  }

  #logListenerError(error: unknown, fields: Record<string, unknown>): void {
    this.#logger?.error({ ...fields, err: error }, "event bus listener failed");
  }
}
