import { describe, expect, it } from "vitest";
import type { InteractionEvent, SessionEvent } from "../ports/session-store.js";
import { buildInteraction, buildUserMessage, messageMutationOf } from "../testing/fixtures.js";
import { InMemoryEventBus } from "./in-memory-event-bus.js";

function sessionEvent(event_id: number): SessionEvent {
  const message = buildUserMessage({
    session_id: "session:a",
    message_id: `message:${event_id}`,
    sequence: event_id,
  });
  return {
    session_id: "session:a",
    event_id,
    mutation: { ...messageMutationOf(message), event_id },
  } as SessionEvent;
}

function interactionEvent(event_id: number): InteractionEvent {
  return {
    event_id,
    kind: "created",
    session_id: "session:a",
    interaction: buildInteraction({ interaction_id: `interaction:${event_id}`, tool_call_id: "call_1" }),
  };
}

describe("InMemoryEventBus", () => {
  it("delivers every published event to every subscriber before publish resolves", async () => {
    const bus = new InMemoryEventBus();
    const first: string[] = [];
    const second: string[] = [];
    bus.subscribe({
      onSessionEvent: (event) => first.push(`s${event.event_id}`),
      onInteractionEvent: (event) => first.push(`i${event.event_id}`),
    });
    bus.subscribe({ onSessionEvent: (event) => second.push(`s${event.event_id}`) });
    await bus.publish({
      session_events: [sessionEvent(1), sessionEvent(2)],
      interaction_events: [interactionEvent(7)],
    });
    expect(first).toEqual(["s1", "s2", "i7"]);
    expect(second).toEqual(["s1", "s2"]);
  });

  it("isolates listeners: one that throws or rejects neither stops the others nor fails publish", async () => {
    const errors: unknown[] = [];
    const bus = new InMemoryEventBus({ logger: { error: (fields) => errors.push(fields.err) } });
    const seen: number[] = [];
    const thrown = new Error("listener broke");
    const rejected = new Error("async listener broke");
    bus.subscribe({
      onSessionEvent: () => {
        throw thrown;
      },
    });
    bus.subscribe({ onSessionEvent: async () => Promise.reject(rejected) });
    bus.subscribe({ onSessionEvent: (event) => seen.push(event.event_id) });
    await bus.publish({ session_events: [sessionEvent(1), sessionEvent(2)], interaction_events: [] });
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([1, 2]);
    expect(errors).toEqual([thrown, thrown, rejected, rejected]);
  });

  it("stops delivering after unsubscribe; unsubscribing twice is harmless", async () => {
    const bus = new InMemoryEventBus();
    const seen: number[] = [];
    const unsubscribe = bus.subscribe({ onSessionEvent: (event) => seen.push(event.event_id) });
    await bus.publish({ session_events: [sessionEvent(1)], interaction_events: [] });
    unsubscribe();
    unsubscribe();
    await bus.publish({ session_events: [sessionEvent(2)], interaction_events: [] });
    expect(seen).toEqual([1]);
    expect(bus.subscriberCount).toBe(0);
  });

  it("keeps each listener's order when a listener publishes while receiving", async () => {
    const bus = new InMemoryEventBus();
    const first: number[] = [];
    const second: number[] = [];
    bus.subscribe({
      onSessionEvent: (event) => {
        first.push(event.event_id);
        if (event.event_id === 1)
          void bus.publish({ session_events: [sessionEvent(2)], interaction_events: [] });
      },
    });
    bus.subscribe({ onSessionEvent: (event) => second.push(event.event_id) });
    await bus.publish({ session_events: [sessionEvent(1)], interaction_events: [] });
    expect(first).toEqual([1, 2]);
    expect(second).toEqual([1, 2]);
  });

  it("copies an event once for all its listeners and never hands out the publisher's object", async () => {
    const bus = new InMemoryEventBus();
    const first: SessionEvent[] = [];
    const second: SessionEvent[] = [];
    bus.subscribe({ onSessionEvent: (event) => first.push(event) });
    bus.subscribe({ onSessionEvent: (event) => second.push(event) });
    const published = sessionEvent(1);
    await bus.publish({ session_events: [published], interaction_events: [] });
    expect(first[0]).toStrictEqual(published);
    expect(first[0]).not.toBe(published);
    expect(second[0]).toBe(first[0]);
  });

  it("routes a session's events only to that session's listeners and to listeners of every session", async () => {
    const bus = new InMemoryEventBus();
    const mine: string[] = [];
    const every: string[] = [];
    bus.subscribe({ session_id: "session:mine", onSessionEvent: (event) => mine.push(event.session_id) });
    bus.subscribe({ onSessionEvent: (event) => every.push(event.session_id) });
    await bus.publish({
      session_events: [
        { ...sessionEvent(1), session_id: "session:other" },
        { ...sessionEvent(1), session_id: "session:mine" },
      ],
      interaction_events: [],
    });
    expect(mine).toEqual(["session:mine"]);
    expect(every).toEqual(["session:other", "session:mine"]);
  });
});
