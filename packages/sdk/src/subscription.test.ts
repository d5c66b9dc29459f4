import { ParleyError } from "@parley/session-core";
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { toParleyError } from "./parley-error.js";
import { startTrackedSubscription } from "./subscription.js";

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
    start: (last_event_id: number | null) => handlers?.onData({ started: true, last_event_id }),
    fail: (error: unknown) => handlers?.onError(error),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

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
