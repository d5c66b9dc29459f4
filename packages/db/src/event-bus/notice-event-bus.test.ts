import type { SessionMutation } from "@parley/session-core";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import type { BusTransport, TransportHandlers } from "./bus-transport.js";
import { NoticeEventBus } from "./notice-event-bus.js";
import type { NotifyPayload } from "./notify-payload.js";

/** A transport that records what the bus sends and lets the test hand it notices. */
class RecordingTransport implements BusTransport {
  readonly sent: NotifyPayload[] = [];
  handlers: TransportHandlers | null = null;
  maxNoticeBytes = 7_999;
  async start(handlers: TransportHandlers): Promise<void> {
    this.handlers = handlers;
  }
  async send(notices: NotifyPayload[]): Promise<void> {
    this.sent.push(...notices);
  }
  async close(): Promise<void> {}
  async simulateConnectionLoss(): Promise<void> {}
}

/** A pool that answers the bus's startup read and counts every statement. */
function countingPool() {
  const statements: string[] = [];
  const pool = {
    query: async (text: string) => {
      statements.push(text);
      return { rows: [{ last: "0" }] };
    },
  } as unknown as pg.Pool;
  return { pool, statements };
}

function liveDelta(session_id: string, event_id: number, delta: string): SessionMutation {
  return {
    event_id,
    mutation_id: `live:${delta}`,
    session_id,
    created_at: 1,
    live: true,
    variant: "delta",
    type: "text",
    message_id: "message:1",
    revision: 0,
    part_id: "part:1",
    delta,
  };
}

function liveNotice(
  session_id: string,
  event_id: number,
  delta: string,
): Extract<NotifyPayload, { kind: "live" }> {
  const body = JSON.stringify(liveDelta(session_id, event_id, delta));
  return { kind: "live", session_id, event_id, origin: "another-bus", body };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
}

async function startBus() {
  const transport = new RecordingTransport();
  const { pool, statements } = countingPool();
  const debug: Record<string, unknown>[] = [];
  const bus = new NoticeEventBus({
    pool,
    transport,
    logger: { warn: () => {}, error: () => {}, debug: (fields) => debug.push(fields) },
  });
  await bus.start();
  statements.length = 0;
  return { bus, transport, statements, debug };
}

describe("NoticeEventBus live mutations", () => {
  it("sends a live mutation as one notice carrying it, after delivering it locally", async () => {
    const { bus, transport } = await startBus();
    const seen: SessionMutation[] = [];
    bus.subscribe({ session_id: "s", onLiveMutation: (mutation) => seen.push(mutation) });
    const mutation = liveDelta("s", 0, "hi");
    bus.publishLive(mutation);
    expect(seen).toStrictEqual([mutation]);
    expect(seen[0]).not.toBe(mutation);
    await bus.close();
    expect(transport.sent).toHaveLength(1);
    const [notice] = transport.sent;
    expect(notice?.kind).toBe("live");
    if (notice?.kind !== "live") return;
    expect({ session_id: notice.session_id, event_id: notice.event_id }).toStrictEqual({
      session_id: "s",
      event_id: 0,
    });
    expect(JSON.parse(notice.body)).toStrictEqual(mutation);
  });

  it("drops its own live notice coming back (NOTIFY echoes): delivered once", async () => {
    const { bus, transport } = await startBus();
    const seen: SessionMutation[] = [];
    bus.subscribe({ session_id: "s", onLiveMutation: (mutation) => seen.push(mutation) });
    bus.publishLive(liveDelta("s", 0, "once"));
    expect(transport.sent).toHaveLength(1);
    for (const notice of transport.sent) transport.handlers?.onNotice(notice);
    // Another bus's live notice of the session, queued behind anything the echo could have started.
    transport.handlers?.onNotice(liveNotice("s", 0, "from-b"));
    await until(() => seen.length >= 2);
    expect(seen.map((mutation) => mutation.mutation_id)).toEqual(["live:once", "live:from-b"]);
    await bus.close();
  });

  it("does no work for a live notice of a session nobody in this process takes live mutations of", async () => {
    const { bus, transport, statements } = await startBus();
    // A listener of every session's durable events, of no live mutation.
    bus.subscribe({ onSessionEvent: () => {} });
    const seen: SessionMutation[] = [];
    bus.subscribe({ session_id: "other", onLiveMutation: (mutation) => seen.push(mutation) });
    transport.handlers?.onNotice({ ...liveNotice("s", 5, "unheard"), body: "not even JSON: never parsed" });
    transport.handlers?.onNotice(liveNotice("other", 0, "heard"));
    await until(() => seen.length >= 1);
    expect(statements).toEqual([]);
    expect(seen.map((mutation) => mutation.mutation_id)).toEqual(["live:heard"]);
    await bus.close();
  });

  it("stops taking live notices of a session when its last live listener unsubscribes", async () => {
    const { bus, transport, statements } = await startBus();
    const seen: SessionMutation[] = [];
    const first = bus.subscribe({ session_id: "s", onLiveMutation: (mutation) => seen.push(mutation) });
    const second = bus.subscribe({ session_id: "s", onLiveMutation: () => {} });
    bus.subscribe({ session_id: "other", onLiveMutation: (mutation) => seen.push(mutation) });
    first();
    first();
    second();
    transport.handlers?.onNotice({ ...liveNotice("s", 4, "unwanted"), body: "never parsed" });
    transport.handlers?.onNotice(liveNotice("other", 0, "heard"));
    await until(() => seen.length >= 1);
    expect(statements).toEqual([]);
    expect(seen.map((mutation) => mutation.mutation_id)).toEqual(["live:heard"]);
  });

  it("keeps a live mutation larger than the transport carries in this process, counted and logged at debug", async () => {
    const { bus, transport, debug } = await startBus();
    const seen: SessionMutation[] = [];
    bus.subscribe({ session_id: "s", onLiveMutation: (mutation) => seen.push(mutation) });
    transport.maxNoticeBytes = 200;
    bus.publishLive(liveDelta("s", 3, "x".repeat(200)));
    await bus.close();
    expect(seen).toHaveLength(1);
    expect(transport.sent).toEqual([]);
    expect(bus.liveMutationsNotCarried).toBe(1);
    expect(debug).toHaveLength(1);
    expect(debug[0]).toMatchObject({ session_id: "s", event_id: 3, limit: 200 });
  });
});

describe("NoticeEventBus admin feed", () => {
  it("reads no feed event while nobody here follows the feed; a later listener is read from then on", async () => {
    const { bus, transport, statements } = await startBus();
    transport.handlers?.onNotice({ kind: "interaction", last: 5 });
    transport.handlers?.onNotice({ kind: "interaction", last: 6 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(statements).toEqual([]);
    // A listener replays what it needs itself (the store's feed); the bus reads what follows.
    bus.subscribe({ onInteractionEvent: () => {} });
    transport.handlers?.onNotice({ kind: "interaction", last: 8 });
    await until(() => statements.length >= 1);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toContain("FROM interaction_events");
    await bus.close();
  });
});
