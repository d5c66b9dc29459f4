import { ParleyError } from "@parley/session-core";
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import type { ContractClient } from "./contract-client.js";
import { toParleyError } from "./parley-error.js";
import { createSessionHandle } from "./session-handle.js";
import { startTrackedSubscription } from "./subscription.js";
import type { SessionMutation, SessionSubscribeOptions } from "./types.js";

interface TestEvent {
  event_id: number;
}

/** A stand-in for a tRPC subscription that the test drives by hand. */
function manualSubscription() {
  const calls: { input: { lastEventId?: string; announce_start: true }; unsubscribed: boolean }[] = [];
  let handlers: {
    onData: (item: unknown) => void;
    onError: (error: unknown) => void;
  } | null = null;
  return {
    calls,
    subscribe: (
      input: { lastEventId?: string; announce_start: true },
      given: NonNullable<typeof handlers>,
    ) => {
      const call = { input, unsubscribed: false };
      calls.push(call);
      handlers = given;
      return {
        unsubscribe: () => {
          call.unsubscribed = true;
        },
      };
    },
    emit: (event_id: number) => handlers?.onData({ id: String(event_id), data: { event_id } }),
    raw: (item: unknown) => handlers?.onData(item),
    start: (last_event_id: number | null) => handlers?.onData({ started: true, last_event_id }),
    fail: (error: unknown) => handlers?.onError(error),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** The retry after a server-side failure is on a backoff timer: wait for its call, not for time. */
async function waitForCalls(calls: readonly unknown[], count: number): Promise<void> {
  while (calls.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("startTrackedSubscription", () => {
  it("sends after_event_id as lastEventId and delivers each event once, in order", async () => {
    const source = manualSubscription();
    const seen: number[] = [];
    let reachedSix: () => void = () => undefined;
    const sixDelivered = new Promise<void>((resolve) => {
      reachedSix = resolve;
    });
    const unsubscribe = startTrackedSubscription<TestEvent>({
      subscribe: source.subscribe,
      listener: async (event) => {
        await settle();
        seen.push(event.event_id);
        if (event.event_id === 6) reachedSix();
      },
      subscribeOptions: { after_event_id: 3 },
    });
    expect(source.calls[0]?.input).toEqual({ lastEventId: "3", announce_start: true });
    for (const id of [2, 3, 4, 5, 5, 4, 6]) source.emit(id);
    await sixDelivered;
    expect(seen).toEqual([4, 5, 6]);
    unsubscribe();
    unsubscribe();
    expect(source.calls[0]?.unsubscribed).toBe(true);
    source.emit(7);
    expect(seen).toEqual([4, 5, 6]);
  });

  it("omits lastEventId without after_event_id and reports a terminal error as ParleyError once", () => {
    const source = manualSubscription();
    const errors: unknown[] = [];
    startTrackedSubscription<TestEvent>({
      subscribe: source.subscribe,
      listener: () => undefined,
      subscribeOptions: { onError: (error) => errors.push(error) },
    });
    expect(source.calls[0]?.input).toEqual({ announce_start: true });
    const wire = new TRPCClientError("Session not found: s", {
      result: { error: { code: -32004, message: "x", data: { parley_code: "session_not_found" } } },
    });
    source.fail(wire);
    source.fail(wire);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ParleyError);
    expect(errors[0]).toMatchObject({ code: "session_not_found", message: "Session not found: s" });
  });

  it("re-subscribes from the last delivered id after a non-domain server error", async () => {
    const source = manualSubscription();
    const seen: number[] = [];
    let resubscribed: () => void = () => undefined;
    const secondCall = new Promise<void>((resolve) => {
      resubscribed = resolve;
    });
    const originalSubscribe = source.subscribe;
    const unsubscribe = startTrackedSubscription<TestEvent>({
      subscribe: (input, handlers) => {
        const subscription = originalSubscribe(input, handlers);
        if (source.calls.length === 2) resubscribed();
        return subscription;
      },
      listener: (event) => {
        seen.push(event.event_id);
      },
      subscribeOptions: { onError: () => seen.push(-1) },
    });
    source.emit(7);
    source.emit(8);
    source.fail(
      new TRPCClientError("Internal server error", {
        result: { error: { code: -32603, message: "x", data: { parley_code: null } } },
      }),
    );
    await secondCall;
    expect(source.calls.map((call) => call.input)).toEqual([
      { announce_start: true },
      { lastEventId: "8", announce_start: true },
    ]);
    source.emit(8);
    source.emit(9);
    await settle();
    expect(seen).toEqual([7, 8, 9]);
    unsubscribe();
    expect(source.calls[1]?.unsubscribed).toBe(true);
  });
});

describe("startTrackedSubscription's onStarted", () => {
  it("reports each (re)start in delivery order, after the events before it, and never as an event", async () => {
    const source = manualSubscription();
    const log: string[] = [];
    let reachedFive: () => void = () => undefined;
    const fiveDelivered = new Promise<void>((resolve) => {
      reachedFive = resolve;
    });
    startTrackedSubscription<TestEvent>({
      subscribe: source.subscribe,
      listener: async (event) => {
        await settle();
        log.push(`event ${event.event_id}`);
        if (event.event_id === 5) reachedFive();
      },
      subscribeOptions: {
        after_event_id: 2,
        onStarted: ({ last_event_id }) => {
          log.push(`started after ${last_event_id}`);
        },
      },
    });
    source.emit(3);
    source.emit(4);
    source.start(4);
    source.emit(4);
    source.emit(5);
    source.start(5);
    await fiveDelivered;
    await settle();
    expect(log).toEqual(["event 3", "event 4", "started after 4", "event 5", "started after 5"]);
  });

  it("reports a start without a cursor as null", async () => {
    const source = manualSubscription();
    const starts: (number | null)[] = [];
    startTrackedSubscription<TestEvent>({
      subscribe: source.subscribe,
      listener: () => undefined,
      subscribeOptions: { onStarted: ({ last_event_id }) => void starts.push(last_event_id) },
    });
    source.start(null);
    await settle();
    expect(starts).toEqual([null]);
  });
});

/** A text delta of message m1: durable without `fragment`'s `live`, live with it. */
function delta(event_id: number, live?: { fragment: string }): SessionMutation {
  return {
    event_id,
    mutation_id: live ? `live-${live.fragment}` : `m-${event_id}`,
    session_id: "s1",
    created_at: 0,
    variant: "delta",
    type: "text",
    message_id: "m1",
    revision: event_id,
    part_id: "p1",
    delta: live?.fragment ?? `d${event_id}`,
    ...(live ? { live: true as const } : {}),
  };
}

/** `session.subscribe` over a hand-driven `session.onMutation`; `log` names what reached whom. */
function sessionFeed(options: SessionSubscribeOptions) {
  const source = manualSubscription();
  const trpc = {
    subscribe: (_path: string, input: { lastEventId?: string; announce_start: true }, handlers: never) =>
      source.subscribe({ ...input }, handlers),
  } as unknown as ContractClient;
  const log: string[] = [];
  const unsubscribe = createSessionHandle(trpc, "s1").subscribe(
    (mutation) => {
      log.push(
        mutation.variant === "delta" && mutation.live ? `live ${mutation.delta}` : `${mutation.event_id}`,
      );
    },
    {
      ...options,
      onReconnect: () => void log.push("reconnect"),
      onStarted: ({ last_event_id }) => void log.push(`started after ${last_event_id}`),
    },
  );
  return {
    source,
    log,
    unsubscribe,
    emit: (mutation: SessionMutation) => source.raw({ id: String(mutation.event_id), data: mutation }),
  };
}

describe("session.subscribe and live mutations (§10.6)", () => {
  it("with live: true hands a live mutation on right after the durable one it follows, never a stale one", async () => {
    const feed = sessionFeed({ live: true, after_event_id: 0 });
    feed.emit(delta(1));
    feed.emit(delta(1, { fragment: "a" }));
    feed.emit(delta(1, { fragment: "b" }));
    feed.emit(delta(2));
    feed.emit(delta(1, { fragment: "stale" }));
    feed.emit(delta(3, { fragment: "ahead" }));
    feed.emit(delta(2, { fragment: "c" }));
    feed.emit(delta(2));
    await settle();
    expect(feed.log).toEqual(["1", "live a", "live b", "2", "live c"]);
  });

  it("never moves the reconnect position with a live mutation", async () => {
    const feed = sessionFeed({ live: true });
    feed.emit(delta(5, { fragment: "first" }));
    feed.source.fail(
      new TRPCClientError("Internal server error", {
        result: { error: { code: -32603, message: "x", data: { parley_code: null } } },
      }),
    );
    await waitForCalls(feed.source.calls, 2);
    feed.emit(delta(6));
    feed.emit(delta(6, { fragment: "second" }));
    feed.source.fail(
      new TRPCClientError("Internal server error", {
        result: { error: { code: -32603, message: "x", data: { parley_code: null } } },
      }),
    );
    await waitForCalls(feed.source.calls, 3);
    expect(feed.source.calls.map((call) => call.input)).toEqual([
      { session_id: "s1", announce_start: true },
      { session_id: "s1", announce_start: true },
      { session_id: "s1", lastEventId: "6", announce_start: true },
    ]);
    await settle();
    expect(feed.log).toEqual(["live first", "6", "live second"]);
    feed.unsubscribe();
  });

  it("delivers persisted state only by default", async () => {
    const feed = sessionFeed({ after_event_id: 0 });
    feed.emit(delta(1));
    feed.emit(delta(1, { fragment: "a" }));
    feed.emit(delta(2));
    feed.emit(delta(2, { fragment: "b" }));
    await settle();
    expect(feed.log).toEqual(["1", "2"]);
  });

  it("reports a reconnect after the missed durable mutations and before the new connection's live ones", async () => {
    const feed = sessionFeed({ live: true, after_event_id: 0 });
    feed.source.start(0);
    feed.emit(delta(1));
    feed.emit(delta(1, { fragment: "a" }));
    // The connection dropped; the ws client re-sent the subscription, whose replay brings 2.
    feed.emit(delta(2));
    feed.source.start(2);
    feed.emit(delta(2, { fragment: "b" }));
    await settle();
    expect(feed.log).toEqual([
      "started after 0",
      "1",
      "live a",
      "2",
      "reconnect",
      "started after 2",
      "live b",
    ]);
  });
});

describe("toParleyError", () => {
  it("keeps errors without a domain code as they are", () => {
    const internal = new TRPCClientError("Internal server error", {
      result: { error: { code: -32603, message: "x", data: { parley_code: null } } },
    });
    expect(toParleyError(internal)).toBe(internal);
    const network = new TypeError("fetch failed");
    expect(toParleyError(network)).toBe(network);
  });
});
