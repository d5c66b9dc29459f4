import { describe, expect, it } from "vitest";
import { type OrderedEventSource, streamOrderedEvents } from "./ordered-event-stream.js";

interface TestEvent {
  event_id: number;
  /** Set on a live event (never in the log): its label. */
  live?: string;
}

const isLive = (event: TestEvent) => event.live !== undefined;

/** Labels of the next `count` items: `3` for a durable event, `3:a` for a live one after 3. */
async function labels(iterator: AsyncGenerator<TestEvent>, count: number): Promise<string[]> {
  const result: string[] = [];
  while (result.length < count) {
    const next = await iterator.next();
    if (next.done) break;
    const { event_id, live } = next.value;
    result.push(live === undefined ? String(event_id) : `${event_id}:${live}`);
  }
  return result;
}

/** A log plus a live channel the test drives: `commit` appends, `deliver` pushes live. */
function createTestSource() {
  const log: TestEvent[] = [];
  const listeners = new Set<(event: TestEvent) => void>();
  const resyncs = new Set<() => void>();
  const source: OrderedEventSource<TestEvent> = {
    listen(push, resync) {
      listeners.add(push);
      resyncs.add(resync);
      return () => {
        listeners.delete(push);
        resyncs.delete(resync);
      };
    },
    readAfter: async (after, limit) => log.filter((event) => event.event_id > after).slice(0, limit),
  };
  return {
    source,
    listenerCount: () => listeners.size,
    commit(event_id: number) {
      const event = { event_id };
      log.push(event);
      return event;
    },
    deliver(event: TestEvent) {
      for (const listener of listeners) listener(event);
    },
    /** The bus reconnected: live events may have been lost meanwhile. */
    resync() {
      for (const resync of resyncs) resync();
    },
  };
}

async function take(iterator: AsyncGenerator<TestEvent>, count: number): Promise<number[]> {
  const ids: number[] = [];
  while (ids.length < count) {
    const next = await iterator.next();
    if (next.done) break;
    ids.push(next.value.event_id);
  }
  return ids;
}

describe("streamOrderedEvents", () => {
  it("replays after the given id, then continues live without duplicates", async () => {
    const test = createTestSource();
    for (const id of [1, 2, 3]) test.commit(id);
    const stream = streamOrderedEvents({ source: test.source, after_event_id: 1, signal: undefined });
    const first = await take(stream, 2);
    test.deliver(test.commit(4));
    test.deliver({ event_id: 3 });
    test.deliver(test.commit(5));
    expect([...first, ...(await take(stream, 2))]).toEqual([2, 3, 4, 5]);
    await stream.return(undefined);
    expect(test.listenerCount()).toBe(0);
  });

  it("after a resync reads the log's tail that the live channel never announced", async () => {
    const test = createTestSource();
    test.commit(1);
    const stream = streamOrderedEvents({ source: test.source, after_event_id: 0, signal: undefined });
    expect(await take(stream, 1)).toEqual([1]);
    test.commit(2);
    test.commit(3);
    test.resync();
    expect(await take(stream, 2)).toEqual([2, 3]);
    test.deliver({ event_id: 3 });
    test.deliver(test.commit(4));
    expect(await take(stream, 1)).toEqual([4]);
    await stream.return(undefined);
  });

  it("replays everything after 0", async () => {
    const test = createTestSource();
    for (const id of [1, 2]) test.commit(id);
    const stream = streamOrderedEvents({ source: test.source, after_event_id: 0, signal: undefined });
    expect(await take(stream, 2)).toEqual([1, 2]);
    await stream.return(undefined);
  });

  it("without a start id delivers only events that arrive after subscribing", async () => {
    const test = createTestSource();
    for (const id of [1, 2]) test.commit(id);
    const stream = streamOrderedEvents({ source: test.source, after_event_id: null, signal: undefined });
    const pending = take(stream, 2);
    await Promise.resolve();
    test.deliver(test.commit(3));
    test.deliver(test.commit(4));
    expect(await pending).toEqual([3, 4]);
    await stream.return(undefined);
  });

  it("fills a hole the live channel left from the log", async () => {
    const test = createTestSource();
    test.commit(1);
    const stream = streamOrderedEvents({ source: test.source, after_event_id: 1, signal: undefined });
    const pending = take(stream, 3);
    await Promise.resolve();
    test.commit(2);
    test.commit(3);
    test.deliver(test.commit(4));
    expect(await pending).toEqual([2, 3, 4]);
    await stream.return(undefined);
  });

  it("buffers live events that arrive during the replay", async () => {
    const test = createTestSource();
    for (let id = 1; id <= 1200; id += 1) test.commit(id);
    const stream = streamOrderedEvents({ source: test.source, after_event_id: 0, signal: undefined });
    const firstId = await take(stream, 1);
    test.deliver(test.commit(1201));
    const rest = await take(stream, 1200);
    expect([...firstId, ...rest]).toEqual(Array.from({ length: 1201 }, (_, index) => index + 1));
    await stream.return(undefined);
  });

  it("passes a live event on only right after the event whose id it carries; it moves no position", async () => {
    const test = createTestSource();
    test.commit(1);
    const stream = streamOrderedEvents({ source: test.source, after_event_id: 0, signal: undefined, isLive });
    expect(await labels(stream, 1)).toEqual(["1"]);
    test.deliver({ event_id: 1, live: "a" });
    test.deliver({ event_id: 1, live: "b" });
    test.deliver(test.commit(2));
    // Follows 1, but 2 is delivered: stale. Ahead of the position: not placeable.
    test.deliver({ event_id: 1, live: "stale" });
    test.deliver({ event_id: 3, live: "ahead" });
    test.deliver({ event_id: 2, live: "c" });
    test.deliver(test.commit(3));
    expect(await labels(stream, 5)).toEqual(["1:a", "1:b", "2", "2:c", "3"]);
    await stream.return(undefined);
  });

  it("after the replay, passes on a live event buffered meanwhile only if it still follows the last event", async () => {
    const test = createTestSource();
    test.commit(1);
    test.commit(2);
    const stream = streamOrderedEvents({ source: test.source, after_event_id: 0, signal: undefined, isLive });
    // Paused inside the replay's page of 1 and 2, listening.
    expect(await labels(stream, 1)).toEqual(["1"]);
    test.deliver({ event_id: 1, live: "old" });
    test.deliver({ event_id: 2, live: "current" });
    test.deliver(test.commit(3));
    expect(await labels(stream, 3)).toEqual(["2", "2:current", "3"]);
    await stream.return(undefined);
  });

  it("without a start id passes live events on from the start, before any durable one", async () => {
    const test = createTestSource();
    test.commit(1);
    const stream = streamOrderedEvents({
      source: test.source,
      after_event_id: null,
      signal: undefined,
      isLive,
    });
    const pending = labels(stream, 3);
    await Promise.resolve();
    test.deliver({ event_id: 1, live: "a" });
    test.deliver(test.commit(2));
    test.deliver({ event_id: 2, live: "b" });
    expect(await pending).toEqual(["1:a", "2", "2:b"]);
    await stream.return(undefined);
  });

  it("ends and unsubscribes when the signal aborts", async () => {
    const test = createTestSource();
    const controller = new AbortController();
    const stream = streamOrderedEvents({
      source: test.source,
      after_event_id: null,
      signal: controller.signal,
    });
    const pending = stream.next();
    await Promise.resolve();
    controller.abort();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(test.listenerCount()).toBe(0);
  });
});
