import { describe, expect, it } from "vitest";
import { InMemoryEventBus } from "../adapters/in-memory-event-bus.js";
import { InMemorySessionStore } from "../adapters/in-memory-session-store.js";
import { buildSessionRecord } from "./fixtures.js";
import { ProcessConnections } from "./simulated-process.js";
import { createSequentialIds, createTestClock } from "./test-clock.js";

describe("ProcessConnections", () => {
  it("shares the store and bus until severed, then rejects every call and delivers nothing", async () => {
    const store = new InMemorySessionStore();
    const bus = new InMemoryEventBus();
    const a = new ProcessConnections("A", { store, bus });
    const b = new ProcessConnections("B", { store, bus });
    const seen_by_a: number[] = [];
    a.bus.subscribe({ onInteractionEvent: (event) => seen_by_a.push(event.event_id) });
    await a.store.createSession(buildSessionRecord({ session_id: "session:1" }));
    expect(await b.store.getSession("session:1")).toMatchObject({ session_id: "session:1" });

    a.sever();
    expect(a.isAlive).toBe(false);
    await expect(a.store.getSession("session:1")).rejects.toThrow("Process A was killed");
    await expect(a.bus.publish({ session_events: [], interaction_events: [] })).rejects.toThrow(
      "Process A was killed",
    );
    const event = { event_id: 1, kind: "created", session_id: "session:1" } as const;
    await b.bus.publish({ session_events: [], interaction_events: [{ ...event, interaction: {} as never }] });
    expect(seen_by_a).toEqual([]);
    expect(bus.subscriberCount).toBe(0);
    expect(await b.store.getSession("session:1")).not.toBeNull();
  });
});

describe("test clock and ids", () => {
  it("moves time only when told to", () => {
    const clock = createTestClock(1000);
    expect(clock.now()).toBe(1000);
    expect(clock.advance(5)).toBe(1005);
    clock.set(2000);
    expect(clock.now()).toBe(2000);
  });

  it("issues zero-padded ids whose string order is their issue order", () => {
    const ids = createSequentialIds();
    const issued = Array.from({ length: 12 }, () => ids.next());
    expect(issued.slice(0, 2)).toEqual(["000001", "000002"]);
    expect([...issued].sort()).toEqual(issued);
    expect(ids.issued).toBe(12);
  });
});
