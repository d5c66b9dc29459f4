import { describe, expect, it } from "vitest";
import { InMemoryEventBus } from "../../adapters/in-memory-event-bus.js";
import { InMemorySessionStore } from "../../adapters/in-memory-session-store.js";
import type { EventBus, EventBusListener } from "../../ports/event-bus.js";
import type { SessionMutation } from "../../schema/mutation.js";
import { buildSessionRecord, buildUserMessage, messageCommitOf } from "../../testing/fixtures.js";
import { subscribeToSession } from "./session-subscription.js";

/** An in-memory bus that can announce a reconnection, as the network buses do after one. */
class ReconnectingBus implements EventBus {
  readonly #inner = new InMemoryEventBus();
  readonly #listeners = new Set<EventBusListener>();
  publish = this.#inner.publish.bind(this.#inner);
  publishLive = this.#inner.publishLive.bind(this.#inner);
  subscribe(listener: EventBusListener): () => void {
    this.#listeners.add(listener);
    const unsubscribe = this.#inner.subscribe(listener);
    return () => {
      this.#listeners.delete(listener);
      unsubscribe();
    };
  }
  reconnected(): void {
    for (const listener of this.#listeners) listener.onResync?.();
  }
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe("subscribeToSession", () => {
  it("on a resync reads the events committed while the bus was away, once each and in order", async () => {
    const store = new InMemorySessionStore();
    const bus = new ReconnectingBus();
    const session_id = "session:resync";
    await store.createSession(buildSessionRecord({ session_id }));
    const commit = async (sequence: number) => {
      const result = await store.commit(
        messageCommitOf(buildUserMessage({ session_id, message_id: `message:${sequence}`, sequence })),
      );
      return result.event ? [result.event] : [];
    };
    const received: SessionMutation[] = [];
    subscribeToSession({
      session_id,
      store,
      bus,
      logger: undefined,
      listener: (mutation) => void received.push(mutation),
      after_event_id: 0,
    });
    await bus.publish({ session_events: await commit(1), interaction_events: [] });
    await until(() => received.length >= 1);
    // Committed, never published: lost notices. Only the resync can deliver them.
    await commit(2);
    await commit(3);
    bus.reconnected();
    await until(() => received.length >= 3);
    await bus.publish({ session_events: await commit(4), interaction_events: [] });
    await until(() => received.length >= 4);
    expect(received.map((mutation) => mutation.event_id)).toEqual([1, 2, 3, 4]);
    expect(received).toStrictEqual(
      (await store.listEvents(session_id, 0, 10)).map((event) => event.mutation),
    );
  });

  it("hands a live mutation on only right after the durable event it follows, never during a replay", async () => {
    const store = new InMemorySessionStore();
    const bus = new ReconnectingBus();
    const session_id = "session:live";
    await store.createSession(buildSessionRecord({ session_id }));
    const commit = async (sequence: number) => {
      const result = await store.commit(
        messageCommitOf(buildUserMessage({ session_id, message_id: `message:${sequence}`, sequence })),
      );
      return result.event ? [result.event] : [];
    };
    const live = (after: number, delta: string): SessionMutation => ({
      live: true,
      variant: "delta",
      type: "text",
      event_id: after,
      mutation_id: `live:${delta}`,
      session_id,
      created_at: 0,
      message_id: "message:assistant",
      revision: 1,
      part_id: "part:text",
      delta,
    });
    const received: string[] = [];
    subscribeToSession({
      session_id,
      store,
      bus,
      logger: undefined,
      listener: (mutation) =>
        void received.push(mutation.variant === "delta" ? mutation.delta : `durable ${mutation.event_id}`),
      after_event_id: 0,
    });
    // Published while the replay from 0 is still reading: dropped, not held for later.
    bus.publishLive(live(0, "during replay"));
    await bus.publish({ session_events: await commit(1), interaction_events: [] });
    await until(() => received.length >= 1);
    bus.publishLive(live(1, "after 1"));
    // Follows event 0, which event 1 already covers: stale.
    bus.publishLive(live(0, "stale"));
    // Follows event 2, which this subscriber has not seen.
    bus.publishLive(live(2, "ahead"));
    await bus.publish({ session_events: await commit(2), interaction_events: [] });
    await until(() => received.length >= 3);
    bus.publishLive(live(2, "after 2"));
    expect(received).toEqual(["durable 1", "after 1", "durable 2", "after 2"]);
  });
});
